# The plugin host: loads plugin libraries (Boost.DLL), negotiates the ABI and validates every
# answer. Boost.DLL and RapidJSON stay private; BOOST_DLL_USE_STD_FS avoids Boost.Filesystem.
#
# sortie_plugin_loader loads and validates libraries in the calling process; the helper
# executable sortie-plugin-host uses it to run one library in a process of its own, and
# sortie_plugin_host adds the host side of that isolation (docs/plugin-policy.md, ISO-n).
add_library(sortie_plugin_loader STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_loader.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_calls.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_wire.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/error.cpp)
target_include_directories(sortie_plugin_loader PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(sortie_plugin_loader
  PUBLIC sortie_registry Sortie::sdk
  PRIVATE Boost::headers RapidJSON::RapidJSON ${CMAKE_DL_LIBS})
target_compile_definitions(sortie_plugin_loader PRIVATE ${SORTIE_CORE_DEFINITIONS})

add_executable(sortie-plugin-host
  ${CMAKE_CURRENT_SOURCE_DIR}/plugin_host_process/main.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/plugin_host_process/plugin_server.cpp)
target_include_directories(sortie-plugin-host PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_link_libraries(sortie-plugin-host PRIVATE sortie_plugin_loader RapidJSON::RapidJSON)
set_target_properties(sortie-plugin-host PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${SORTIE_STAGE_DIR}/${SORTIE_LIBEXECDIR})
install(TARGETS sortie-plugin-host RUNTIME DESTINATION ${SORTIE_LIBEXECDIR})

add_library(sortie_plugin_host STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_host.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_clients.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_isolation.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_proxy.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/plugin_helper.cpp)
target_link_libraries(sortie_plugin_host
  PUBLIC sortie_plugin_loader
  PRIVATE RapidJSON::RapidJSON)
# The helper sits at the same place in the prefix of the stage and install trees.
target_compile_definitions(sortie_plugin_host PRIVATE
  SORTIE_PLUGIN_HELPER_DIR="${SORTIE_LIBEXECDIR}")
# Whatever links the host needs the helper built.
add_dependencies(sortie_plugin_host sortie-plugin-host)
