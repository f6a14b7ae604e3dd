# cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
# Writes a C file defining `const char NAME[]` with the contents of IN.
file(READ "${IN}" content)
string(REPLACE "\\" "\\\\" content "${content}")
string(REPLACE "\"" "\\\"" content "${content}")
string(REPLACE "\n" "\\n\"\n\"" content "${content}")
file(WRITE "${OUT}" "/* generated from ${IN}; do not edit */\nconst char ${NAME}[] =\n\"${content}\";\n")
