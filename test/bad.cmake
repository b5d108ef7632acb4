# bad.cmake — bad-input file tests: each test/lit/bad/*.txt is one ctest
# (bad.<name>) run by test/lit/run_bad.py against tilt-opt.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  file(GLOB TILT_BAD_CASES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/lit/bad/*.txt)
  foreach(case ${TILT_BAD_CASES})
    get_filename_component(name ${case} NAME_WE)
    add_test(NAME bad.${name}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/lit/run_bad.py
                     --tool $<TARGET_FILE:tilt-opt> ${case})
  endforeach()
else()
  message(STATUS "python3 not found: bad-input tests (test/lit/bad) are not registered")
endif()
