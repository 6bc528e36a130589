# owned by the store work; see core/CMakeLists.txt
