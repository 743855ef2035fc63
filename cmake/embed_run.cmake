# SPDX-License-Identifier: Apache-2.0
# Script mode of gd_embed: writes a C file with IN's bytes as SYM[].
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE ${OUT} "/* Generated from ${IN}: do not edit. */\nconst char ${SYM}[] = {${body}0x00};\n")
