# scdoc.cmake: cmake -DSCDOC=scdoc -DIN=page.scd -DOUT=page -P scdoc.cmake
#
# scdoc reads standard input and writes standard output. Its ".nh" comes
# before ".TH", which turns hyphenation back on; repeat it after, so option
# names are never split across lines.
execute_process(COMMAND ${SCDOC} INPUT_FILE ${IN} OUTPUT_VARIABLE roff RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scdoc failed on ${IN}")
endif()
string(REGEX REPLACE "(\n\\.TH [^\n]*\n)" "\\1.nh\n" roff "${roff}")
file(WRITE ${OUT}.tmp "${roff}")
file(RENAME ${OUT}.tmp ${OUT})
