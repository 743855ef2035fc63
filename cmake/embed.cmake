# SPDX-License-Identifier: Apache-2.0
# Embeds data files into the library as C strings, so the binary needs no
# data directory: the same tables serve from build/ and when installed.
#   gd_embed(TARGET SYMBOL FILE): `const char SYMBOL[]` holds FILE's text.
function(gd_embed target symbol file)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embed_${symbol}.c)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYM=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake
    DEPENDS ${file} ${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE ${out})
endfunction()
