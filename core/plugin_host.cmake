# The plugin host: loads plugin libraries (Boost.DLL), negotiates the ABI and validates every
# answer. Boost.DLL and RapidJSON stay private; BOOST_DLL_USE_STD_FS avoids Boost.Filesystem.
add_library(sortie_plugin_host STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_host.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_loader.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_clients.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_calls.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/error.cpp)
target_include_directories(sortie_plugin_host PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(sortie_plugin_host
  PUBLIC sortie_registry Sortie::sdk
  PRIVATE Boost::headers RapidJSON::RapidJSON ${CMAKE_DL_LIBS})
target_compile_definitions(sortie_plugin_host PRIVATE ${SORTIE_CORE_DEFINITIONS})
