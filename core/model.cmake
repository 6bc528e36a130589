# The application model and the files people write: specs, run options, .sortieconfig and
# components. JSON and YAML parsers stay private (RapidJSON, yaml-cpp are not in public headers).
add_library(sortie_model STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/src/model.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/model_json.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/model_suggest.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/model_files.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/json_values.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/spec_file.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/runopts.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/config_file.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/component.cpp)
target_include_directories(sortie_model PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(sortie_model PUBLIC Sortie::sdk PRIVATE sortie_registry RapidJSON::RapidJSON yaml-cpp)
