# Host functions: spectest and WASI (issue 3).
list(APPEND TILT_SOURCES src/host/host.c src/host/spectest.c src/host/wasi.c)
