# Writes the build's description (version, git commit, library versions) into OUT from IN, run at
# configure time and again by the build whenever the checkout's HEAD moves (apps/CMakeLists.txt).
# Outside a git checkout of these sources (a release tarball, a Debian source package) there is
# no commit to name, and none is made up.
#   cmake -DSOURCE_DIR=... -DIN=... -DOUT=... -DVERSION=... -DSIMGRID=... -DPMIX=... -DHWLOC=... -P build_info.cmake
set(PMIXFLOW_GIT_COMMIT "")
set(PMIXFLOW_GIT_DATE "")
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                  OUTPUT_VARIABLE top RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(status EQUAL 0)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" source)
  endif()
  # Only the sources' own repository: a tarball unpacked inside another checkout is not that commit.
  if(status EQUAL 0 AND top STREQUAL source)
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" log -1 --abbrev=7 "--format=%h %cs"
                    OUTPUT_VARIABLE head RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(status EQUAL 0 AND head MATCHES "^([0-9a-f]+) ([0-9-]+)$")
      set(PMIXFLOW_GIT_COMMIT "${CMAKE_MATCH_1}")
      set(PMIXFLOW_GIT_DATE "${CMAKE_MATCH_2}")
    endif()
  endif()
endif()
# configure_file rewrites OUT only when its text changes: a new commit relinks, a rebuild does not.
configure_file("${IN}" "${OUT}" @ONLY)
