# FrcTests.cmake - the test cases of a Check binary, read from its own sources.
#
#   frc_check_cases(OUT_VAR SOURCE...)
#
# sets OUT_VAR to the case names of the FRC_CASE("name", ...) lines (tests/frc_case.h) and
# of the heuristics' ADD_CASE(s, "name", ...) lines in the sources, in order. The sources
# are configure dependencies: adding a case to a table re-runs CMake, which registers it.
# So each case is listed once, in the C file that runs it.
include_guard(GLOBAL)

function(frc_check_cases out)
	set(_names)
	set(_re "(FRC_CASE\\(|ADD_CASE\\(s, )\"([a-z0-9_]+)\"")
	foreach(_src IN LISTS ARGN)
		get_filename_component(_abs ${_src} ABSOLUTE)
		file(STRINGS ${_abs} _lines REGEX "${_re}")
		foreach(_line IN LISTS _lines)
			string(REGEX MATCH "${_re}" _m "${_line}")
			list(APPEND _names ${CMAKE_MATCH_2})
		endforeach()
		set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_abs})
	endforeach()
	if(NOT _names)
		message(FATAL_ERROR "frc_check_cases: no FRC_CASE/ADD_CASE line in ${ARGN}")
	endif()
	set(${out} ${_names} PARENT_SCOPE)
endfunction()
