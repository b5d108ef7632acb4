# The reader's spec-suite checker (test/spec/read_check.py drives it).
add_executable(read_check ${CMAKE_CURRENT_SOURCE_DIR}/spec/read_check.c)
target_include_directories(read_check PRIVATE ${CMAKE_SOURCE_DIR}/src/ir ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(read_check tilt_static)
add_test(NAME spec.read_check COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/spec/read_check.py ${CMAKE_BINARY_DIR})
add_test(NAME spec.read_check.no_validate
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/spec/read_check.py ${CMAKE_BINARY_DIR} --no-validate)
