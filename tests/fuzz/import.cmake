# SPDX-License-Identifier: Apache-2.0
# Fuzzing the --from parsers (src/formats/capture/): one target per parser,
# built the two ways tests/fuzz/CMakeLists.txt builds the scenario's.
#  - fuzz_import_NAME_replay (always): the seed corpus as a ctest.
#  - fuzz_import_NAME (GD_FUZZ=ON, clang): libFuzzer, the import sources
#    instrumented, the rest of gdcore linked as is; run.sh runs them.
# Every capture format's file (src/formats/capture/, the format table
# included), so a new format is fuzzed without an edit here.
file(GLOB gd_import_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/formats/capture/*.c
     ${PROJECT_SOURCE_DIR}/src/formats/nccl_log/*.c ${PROJECT_SOURCE_DIR}/src/formats/nccl_tests/*.c)
list(APPEND gd_import_sources ${PROJECT_SOURCE_DIR}/src/core/facts_json.c ${PROJECT_SOURCE_DIR}/src/core/input.c)
foreach(name xml text csv detect klog recording nccl nccl_tests net)
  file(GLOB seeds CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/import_${name}/*)
  add_executable(fuzz_import_${name}_replay fuzz_import_${name}.c fuzz_import_common.c fuzz_replay_main.c)
  target_link_libraries(fuzz_import_${name}_replay PRIVATE gdcore)
  add_test(NAME fuzz_import_${name}_replay COMMAND fuzz_import_${name}_replay ${seeds})
  set_tests_properties(fuzz_import_${name}_replay PROPERTIES TIMEOUT 600 LABELS "fuzz")
  if(GD_FUZZ)
    add_executable(fuzz_import_${name} fuzz_import_${name}.c fuzz_import_common.c ${gd_import_sources})
    target_include_directories(fuzz_import_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_compile_options(fuzz_import_${name} PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
    target_link_options(fuzz_import_${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_import_${name} PRIVATE gdcore)
  endif()
endforeach()
