# The examples of the public C API (examples/), run as tests. build_loop runs
# its module in tilt's interpreter (the results it prints are checked) and
# writes it; wabt's wasm-validate must accept the file and node must run it
# (each skipped, exit 77, when the tool is not installed).
if(EXISTS ${CMAKE_SOURCE_DIR}/examples/CMakeLists.txt)
  set(EX_SUM ${CMAKE_CURRENT_BINARY_DIR}/example_sum.wasm)
  add_test(NAME example.build_loop COMMAND example_build_loop ${EX_SUM})
  set_tests_properties(example.build_loop PROPERTIES FIXTURES_SETUP example_sum
                       PASS_REGULAR_EXPRESSION "sum\\(10\\) = 55, main\\(\\) = 55\nwrote .*: [0-9]+ bytes")

  find_program(EX_WASM_VALIDATE wasm-validate)
  if(EX_WASM_VALIDATE)
    add_test(NAME example.build_loop.wasm-validate COMMAND ${EX_WASM_VALIDATE} ${EX_SUM})
  else()
    add_test(NAME example.build_loop.wasm-validate
             COMMAND sh -c "echo 'wasm-validate not installed: skipped'; exit 77")
  endif()

  # Runs the module: sum(10) and main() must both be 55.
  find_program(EX_NODE node)
  if(EX_NODE)
    add_test(NAME example.build_loop.node COMMAND ${EX_NODE} -e
             "const b = require('fs').readFileSync(process.argv[1]);
              WebAssembly.instantiate(b).then(({instance: i}) => {
                const s = i.exports.sum(10), r = i.exports.main();
                console.log('sum(10) =', s, ' main() =', r);
                process.exit(s === 55 && r === 55 && i.exports.sum(0) === 0 ? 0 : 1);
              }, e => { console.error(e.message); process.exit(1); });"
             ${EX_SUM})
  else()
    add_test(NAME example.build_loop.node
             COMMAND sh -c "echo 'node not installed: skipped'; exit 77")
  endif()
  set_tests_properties(example.build_loop.wasm-validate example.build_loop.node PROPERTIES
                       FIXTURES_REQUIRED example_sum SKIP_RETURN_CODE 77)
endif()

# The Relooper example (issue 6): seed 000's irreducible graph, structured
# and run; the printed traces are checked.
if(EXISTS ${CMAKE_SOURCE_DIR}/examples/relooper.c)
  add_test(NAME example.relooper COMMAND example_relooper ${CMAKE_CURRENT_BINARY_DIR}/example_relooper.wasm)
  set_tests_properties(example.relooper PROPERTIES
                       PASS_REGULAR_EXPRESSION "f\\(0, 2\\) prints 1 2 1 2\nf\\(1, 2\\) prints 2 1 2\nwrote")
endif()
