# The app store (core/include/sortie/core/store.hpp): SQLite stays private to this library.
add_library(sortie_store STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/src/store.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/store_experiments.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/store_schema.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/store_sqlite.cpp)
target_include_directories(sortie_store PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(sortie_store
  PUBLIC sortie_model Sortie::sdk
  PRIVATE SQLite::SQLite3 RapidJSON::RapidJSON)
