# owned by the model work; see core/CMakeLists.txt
