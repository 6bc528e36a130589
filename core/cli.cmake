# owned by the cli work; see core/CMakeLists.txt
