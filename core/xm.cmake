# The XManager-style launch model (sdk/include/sortie/xm.hpp) without plugins: args, executable
# specs, job requirements, sweeps, job names and experiment files. It reuses the model's private
# helpers (file reads, "did you mean" hints) from core/src; RapidJSON and yaml-cpp stay private.
add_library(sortie_xm_model STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/args.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/executables.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/requirements.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/sweeps.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/job_names.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/xm/experiment_file.cpp)
target_include_directories(sortie_xm_model
  PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
  PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_link_libraries(sortie_xm_model
  PUBLIC sortie_model Sortie::sdk
  PRIVATE RapidJSON::RapidJSON yaml-cpp)
