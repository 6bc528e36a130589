# The `sortie` command line, built into the stage tree (bin/ beside share/sortie/plugins.d).
set(SORTIE_DEFAULT_SCHEDULER "local_cwd" CACHE STRING
    "Scheduler used by `sortie run` when neither -s nor .sortieconfig names one")
add_executable(sortie
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/main.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_context.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/json_text.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/app_waiter.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/app_lookup.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/command_line.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/log_printer.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/launcher.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/status_format.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/time_arg.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_run.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_status.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_cancel.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_list.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_log.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_plugins.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_catalog.cpp)
target_compile_definitions(sortie PRIVATE
  SORTIE_VERSION="${PROJECT_VERSION}"
  SORTIE_DEFAULT_SCHEDULER="${SORTIE_DEFAULT_SCHEDULER}")
target_link_libraries(sortie PRIVATE
  sortie_plugin_host sortie_store sortie_model sortie_registry
  Boost::program_options fmt::fmt RapidJSON::RapidJSON)
set_target_properties(sortie PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${SORTIE_STAGE_DIR}/${CMAKE_INSTALL_BINDIR})
install(TARGETS sortie RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
