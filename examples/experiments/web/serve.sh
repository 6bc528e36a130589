echo "web server $* in $(cat /etc/hostname >/dev/null && echo a container)"
