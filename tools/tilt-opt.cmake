# tilt-opt and tilt-dis print the project version for --version.
target_compile_definitions(tilt-opt PRIVATE TILT_VERSION="${PROJECT_VERSION}")
target_compile_definitions(tilt-dis PRIVATE TILT_VERSION="${PROJECT_VERSION}")
