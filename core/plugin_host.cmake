# owned by the plugin_host work; see core/CMakeLists.txt
