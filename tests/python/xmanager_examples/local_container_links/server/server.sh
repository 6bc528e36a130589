# The server of local_container_links: fetches a value from the store (--redis_host) and serves
# it on port 8080.
for arg in "$@"; do case $arg in --redis_host=*) store=${arg#--redis_host=};; esac; done
mkdir -p /www
until wget -q -O /www/index.html "http://$store:6379/value.txt"; do sleep 0.2; done
exec httpd -f -p 8080 -h /www
