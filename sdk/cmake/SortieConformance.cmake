# sortie_add_scheduler_conformance_test(<plugin target>
#     SCHEDULER <name>                  the scheduler component to test
#     [CFG <json>]                      run options given to dryrun (default: {})
#     [IMAGE <image>]                   the roles' image, for schedulers that need one
#     [SUPPORTS <field>...]             AppDef fields it honours: base_image, min_replicas,
#                                       max_retries, port_map, mounts, resource; every other one
#                                       must be refused with INVALID_ARGUMENT naming it
#     [SKIP <check>...]                 checks not run, e.g. `run` where no backend is reachable
#     [GRACE <seconds>]                 how long after cancel every process of a running app
#                                       must have stopped (default 30)
#     [LOGS_UNIMPLEMENTED]              log_open refuses every app with UNIMPLEMENTED and a
#                                       message saying where the logs are, as documented
#     [LAUNCHER <command>...])          runs the kit under this command, e.g. one that starts a
#                                       fake backend first; it may rewrite the kit's arguments
#                                       and report checks of its own as `FAIL <check>: ...`
#
# Registers the ctest `<target>_<scheduler>_conformance`, which loads the plugin through the C
# ABI and runs the standard suite of sdk/README.md ("The conformance kit"). Needs enable_testing().
include_guard(GLOBAL)

function(sortie_add_scheduler_conformance_test target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "LOGS_UNIMPLEMENTED" "SCHEDULER;CFG;IMAGE;GRACE"
                        "SUPPORTS;SKIP;LAUNCHER")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_SCHEDULER)
    message(FATAL_ERROR "sortie_add_scheduler_conformance_test(${target} SCHEDULER <name> ...): "
                        "SCHEDULER is required; unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(args --plugin $<TARGET_FILE:${target}> --scheduler ${ARG_SCHEDULER})
  if(DEFINED ARG_CFG)
    list(APPEND args --cfg "${ARG_CFG}")
  endif()
  if(DEFINED ARG_IMAGE)
    list(APPEND args --image "${ARG_IMAGE}")
  endif()
  if(DEFINED ARG_GRACE)
    list(APPEND args --grace ${ARG_GRACE})
  endif()
  foreach(field IN LISTS ARG_SUPPORTS)
    list(APPEND args --supports ${field})
  endforeach()
  foreach(check IN LISTS ARG_SKIP)
    list(APPEND args --skip ${check})
  endforeach()
  if(ARG_LOGS_UNIMPLEMENTED)
    list(APPEND args --unimplemented logs)
  endif()
  set(name ${target}_${ARG_SCHEDULER}_conformance)
  add_test(NAME ${name}
    COMMAND ${ARG_LAUNCHER} $<TARGET_FILE:Sortie::scheduler_conformance> ${args})
  set_tests_properties(${name} PROPERTIES
    PASS_REGULAR_EXPRESSION "${ARG_SCHEDULER}: conformant"
    FAIL_REGULAR_EXPRESSION "FAIL [a-z_]+:" TIMEOUT 300)
endfunction()
