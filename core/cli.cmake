# The `sortie` command line, built into the stage tree (bin/ beside share/sortie/plugins.d).
set(SORTIE_DEFAULT_SCHEDULER "local_cwd" CACHE STRING
    "Scheduler used by `sortie run` when neither -s nor .sortieconfig names one")

# What a launching process needs (registry, plugin host, store, the submit pipeline, waiting):
# shared by the CLI and the launch API (sortie/xm.hpp).
add_library(sortie_session STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_context.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/json_text.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/document_text.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/app_waiter.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/app_lookup.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/launcher.cpp)
target_include_directories(sortie_session PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/cli)
target_link_libraries(sortie_session
  PUBLIC sortie_plugin_host sortie_store sortie_model sortie_registry
  PRIVATE RapidJSON::RapidJSON yaml-cpp)

# The launch API: experiments, packaging, work units (sortie/xm.hpp).
add_library(sortie_xm STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/experiment.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/packaging.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/work_unit_launch.cpp)
target_link_libraries(sortie_xm
  PUBLIC sortie_xm_model sortie_session
  PRIVATE RapidJSON::RapidJSON)

# Sortie::launch, the installed library of the launch API (both xm libraries whole, so every
# function of sortie/xm.hpp is in it, used by the CLI or not). Only sortie::xm symbols are exported;
# the core inside it (SQLite, Boost.DLL, fmt users) stays private.
add_library(sortie_launch SHARED ${CMAKE_CURRENT_SOURCE_DIR}/xm/launch_library.cpp
  $<TARGET_OBJECTS:sortie_xm_model>)
target_link_libraries(sortie_launch PRIVATE $<LINK_LIBRARY:WHOLE_ARCHIVE,sortie_xm>)
target_link_libraries(sortie_launch PUBLIC Sortie::sdk)
target_link_options(sortie_launch PRIVATE
  "LINKER:--version-script=${CMAKE_CURRENT_SOURCE_DIR}/xm/launch_library.map")
set_target_properties(sortie_launch PROPERTIES
  EXPORT_NAME launch
  OUTPUT_NAME sortie_launch
  LIBRARY_OUTPUT_DIRECTORY ${SORTIE_STAGE_DIR}/${CMAKE_INSTALL_LIBDIR}
  LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/xm/launch_library.map)
add_library(Sortie::launch ALIAS sortie_launch)
install(TARGETS sortie_launch EXPORT SortieTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

add_executable(sortie
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/main.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/command_line.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/log_printer.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/status_format.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/time_arg.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_run.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_config.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/dryrun_document.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_status.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_cancel.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_list.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_log.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_plugins.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_catalog.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_launch.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/cmd_experiments.cpp)
target_compile_definitions(sortie PRIVATE
  SORTIE_DEFAULT_SCHEDULER="${SORTIE_DEFAULT_SCHEDULER}")
target_link_libraries(sortie PRIVATE
  sortie_xm sortie_session
  Boost::program_options fmt::fmt RapidJSON::RapidJSON)
set_target_properties(sortie PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${SORTIE_STAGE_DIR}/${CMAKE_INSTALL_BINDIR})
install(TARGETS sortie RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
