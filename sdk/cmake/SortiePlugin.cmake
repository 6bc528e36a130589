# sortie_add_plugin(<target>
#     SOURCES <file>...
#     PROVIDES <group>:<name>...        e.g. sortie.schedulers:acme_batch
#     [EXECUTORS <executor>.<kind>=<scheduler>...]
#                                        executors it runs (docs/payloads.md P-14), e.g.
#                                        acme.image=acme_batch (kind: process or image)
#     [WORKDIR <executor>.process[:<option>=<value>,...]...]
#                                        process executors whose scheduler runs a process from
#                                        the directory given as its role's image (the launch
#                                        directory's snapshot), with the run options that make it
#                                        do so (P-14 `workdir`), e.g. acme.process:image_provider=dir
#     [VERSION <version>] [DESCRIPTION <text>]
#     [OUTPUT_DIRECTORY <dir>]           where the library is built (default: current binary dir)
#     [MANIFEST_DIRECTORY <dir>]         where its build-tree manifest goes (default: <binary>/plugins.d)
#     [NO_INSTALL])
#
# Builds a MODULE library with hidden visibility that exports only sortie_plugin_negotiate
# (ABI-1), and writes its manifest: one in the build tree (point SORTIE_PLUGIN_PATH at
# MANIFEST_DIRECTORY to use it uninstalled) and one installed into share/sortie/plugins.d.
include_guard(GLOBAL)
include(GNUInstallDirs)

function(sortie_add_plugin target)
  # Inside the function: a directory variable set at include time is not seen in other directories.
  set(_SORTIE_GROUPS "sortie.schedulers;sortie.packagers;sortie.image_providers;sortie.named_resources")
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_INSTALL"
    "VERSION;DESCRIPTION;OUTPUT_DIRECTORY;MANIFEST_DIRECTORY" "SOURCES;PROVIDES;EXECUTORS;WORKDIR")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "sortie_add_plugin(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "sortie_add_plugin(${target}): SOURCES is required")
  endif()
  if(NOT ARG_PROVIDES)
    message(FATAL_ERROR "sortie_add_plugin(${target}): PROVIDES is required (e.g. sortie.schedulers:NAME)")
  endif()
  if(NOT ARG_VERSION)
    set(ARG_VERSION "${PROJECT_VERSION}")
  endif()
  if(NOT ARG_VERSION)
    set(ARG_VERSION "0.0.0")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  if(NOT ARG_MANIFEST_DIRECTORY)
    set(ARG_MANIFEST_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/plugins.d")
  endif()

  set(provides_json "")
  foreach(entry IN LISTS ARG_PROVIDES)
    if(NOT entry MATCHES "^([a-z_.]+):([A-Za-z0-9_.-]+)$")
      message(FATAL_ERROR "sortie_add_plugin(${target}): PROVIDES entry '${entry}' is not <group>:<name>")
    endif()
    set(group "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    if(NOT group IN_LIST _SORTIE_GROUPS)
      message(FATAL_ERROR "sortie_add_plugin(${target}): unknown group '${group}' in '${entry}'; "
                          "expected one of ${_SORTIE_GROUPS}")
    endif()
    if(provides_json)
      string(APPEND provides_json ",\n")
    endif()
    string(APPEND provides_json "    {\"group\": \"${group}\", \"name\": \"${name}\"}")
  endforeach()
  foreach(entry IN LISTS ARG_WORKDIR)
    if(NOT entry MATCHES "^([A-Za-z0-9_-]+\\.process)(:(.*))?$")
      message(FATAL_ERROR "sortie_add_plugin(${target}): WORKDIR entry '${entry}' is not "
                          "<executor>.process[:<option>=<value>,...]")
    endif()
    set(executor "${CMAKE_MATCH_1}")
    set(options_json "")
    string(REPLACE "," ";" options "${CMAKE_MATCH_3}")
    foreach(option IN LISTS options)
      if(NOT option MATCHES "^([A-Za-z0-9_]+)=([A-Za-z0-9_./-]*)$")
        message(FATAL_ERROR "sortie_add_plugin(${target}): WORKDIR option '${option}' is not "
                            "<option>=<value>")
      endif()
      if(options_json)
        string(APPEND options_json ", ")
      endif()
      string(APPEND options_json "\"${CMAKE_MATCH_1}\": \"${CMAKE_MATCH_2}\"")
    endforeach()
    set(workdir_${executor} ", \"workdir\": {\"options\": {${options_json}}}")
  endforeach()
  foreach(entry IN LISTS ARG_EXECUTORS)
    if(NOT entry MATCHES "^([A-Za-z0-9_-]+\\.(process|image))=([A-Za-z0-9_.-]+)$")
      message(FATAL_ERROR "sortie_add_plugin(${target}): EXECUTORS entry '${entry}' is not "
                          "<executor>.<process|image>=<scheduler>")
    endif()
    string(APPEND provides_json ",\n    {\"group\": \"sortie.executors\", \"name\": "
           "\"${CMAKE_MATCH_1}\", \"executor\": {\"scheduler\": \"${CMAKE_MATCH_3}\""
           "${workdir_${CMAKE_MATCH_1}}}}")
  endforeach()

  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Sortie::sdk)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${SORTIE_PLUGIN_VERSION_SCRIPT}" "LINKER:--no-undefined")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${SORTIE_PLUGIN_VERSION_SCRIPT}")

  set(abi "${SORTIE_ABI_MAJOR}.${SORTIE_ABI_MINOR}")
  string(REPLACE "\"" "\\\"" description "${ARG_DESCRIPTION}")
  foreach(kind IN ITEMS build install)
    if(kind STREQUAL "build")
      set(manifest_dir "${ARG_MANIFEST_DIRECTORY}")
      set(library_dir "${ARG_OUTPUT_DIRECTORY}")
      set(manifest_file "${ARG_MANIFEST_DIRECTORY}/${target}.json")
    else()
      set(manifest_dir "/${CMAKE_INSTALL_DATADIR}/sortie/plugins.d")
      set(library_dir "/${CMAKE_INSTALL_LIBDIR}/sortie/plugins")
      set(manifest_file "${CMAKE_CURRENT_BINARY_DIR}/sortie-install-manifests/${target}.json")
    endif()
    file(RELATIVE_PATH library_rel "${manifest_dir}" "${library_dir}")
    string(REGEX REPLACE "/$" "" library_rel "${library_rel}")
    if(library_rel STREQUAL "")
      set(library_rel ".")
    endif()
    file(GENERATE OUTPUT "${manifest_file}" CONTENT "{
  \"file_format_version\": \"1.0\",
  \"plugin\": {
    \"name\": \"${target}\",
    \"version\": \"${ARG_VERSION}\",
    \"description\": \"${description}\",
    \"library\": \"${library_rel}/$<TARGET_FILE_NAME:${target}>\",
    \"abi\": {\"min\": \"${abi}\", \"max\": \"${abi}\"}
  },
  \"provides\": [
${provides_json}
  ]
}
")
  endforeach()

  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}/sortie/plugins")
    install(FILES "${CMAKE_CURRENT_BINARY_DIR}/sortie-install-manifests/${target}.json"
            DESTINATION "${CMAKE_INSTALL_DATADIR}/sortie/plugins.d")
  endif()
endfunction()
