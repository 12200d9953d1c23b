# What `cmake --install` puts under the prefix, and the Debian package made of it (cpack -G DEB):
#
#   bin/pmixflow, bin/pmixflow-view         the programs people run
#   libexec/pmixflow/pmixflow-party, -job   what `pmixflow emul` starts (install_layout.hpp)
#   include/pmixflow/policies/*.hpp         the policy interface: all a policy library needs
#   include/pmixflow/{vocab,log}/*.hpp      the event log's reader, for tools of one's own
#   lib/libpmixflow_{vocab,log}.a           the same, compiled (pmixflow::log)
#   lib/cmake/pmixflow/, lib/pkgconfig/     find_package(pmixflow) -> pmixflow::policy, pmixflow::log;
#                                           pkg-config pmixflow (a policy), pmixflow-log (a tool)
#   share/pmixflow/topologies, traces       the shipped node shapes (the default one) and scenarios
#   share/man/man1/                         pages made from --help by help2man
#   share/bash-completion/completions/      made from the option tables by `pmixflow --completion bash`
#   share/doc/pmixflow/examples/policies/   the example policy, buildable against the prefix
#
# A policy library links no library of pmixflow (the interface is inline or virtual,
# examples/policies/CMakeLists.txt). The log's reader is installed for the other users of the log,
# the public contract between pmixflow and people's own tools (docs/events.md): the layers the
# viewer reads a log with, and nothing more (no roles, no SimGrid, no PMIx).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS pmixflow RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET pmixflow-view)
  install(TARGETS pmixflow-view RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
foreach(program pmixflow-party pmixflow-job)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/pmixflow)
  endif()
endforeach()

# --- the policy interface, as a CMake package and a pkg-config file ---------------------------
set(policy_headers ${PROJECT_SOURCE_DIR}/core/policies/include/pmixflow/policies)
add_library(pmixflow_policy_api INTERFACE)
add_library(pmixflow::policy ALIAS pmixflow_policy_api)
target_include_directories(pmixflow_policy_api INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/core/policies/include>
                                                         $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(pmixflow_policy_api INTERFACE cxx_std_20)
set_target_properties(pmixflow_policy_api PROPERTIES EXPORT_NAME policy)
install(TARGETS pmixflow_policy_api EXPORT pmixflowTargets)
install(FILES ${policy_headers}/policy.hpp ${policy_headers}/plugin.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pmixflow/policies)

# --- the event log's reader: pmixflow::log (and pmixflow::vocab, which it needs) -----------
set_target_properties(pmixflow_vocab PROPERTIES EXPORT_NAME vocab)
set_target_properties(pmixflow_log PROPERTIES EXPORT_NAME log)
install(TARGETS pmixflow_vocab pmixflow_log EXPORT pmixflowTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY core/vocab/include/ core/log/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# A stripped install (cmake --install --strip, and the Debian package, CPACK_STRIP_FILES) strips
# the programs; the archives keep their symbols but drop their debug information, nine tenths of
# their size.
install(CODE "if(CMAKE_INSTALL_DO_STRIP)
  foreach(archive libpmixflow_vocab.a libpmixflow_log.a)
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
                    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/\${archive}\")
  endforeach()
endif()")
# The prefix as the .pc file finds it from where it lies (lib/pkgconfig, or Debian's
# lib/x86_64-linux-gnu/pkgconfig), so that a prefix moved elsewhere still works.
file(RELATIVE_PATH PMIXFLOW_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/pmixflow-log.pc.in ${PROJECT_BINARY_DIR}/pmixflow-log.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pmixflow-log.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/pmixflow)
install(EXPORT pmixflowTargets NAMESPACE pmixflow:: DESTINATION ${package_dir})
configure_package_config_file(cmake/pmixflowConfig.cmake.in ${PROJECT_BINARY_DIR}/pmixflowConfig.cmake
                              INSTALL_DESTINATION ${package_dir})
# 0.x: a policy built against 0.1 is not promised to load in 0.2 (kPolicyApiVersion decides).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pmixflowConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pmixflowConfig.cmake ${PROJECT_BINARY_DIR}/pmixflowConfigVersion.cmake
        DESTINATION ${package_dir})
configure_file(cmake/pmixflow.pc.in ${PROJECT_BINARY_DIR}/pmixflow.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pmixflow.pc DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig)

# --- data and the example --------------------------------------------------------------------
install(DIRECTORY topologies/ DESTINATION ${CMAKE_INSTALL_DATADIR}/pmixflow/topologies FILES_MATCHING PATTERN "*.xml")
install(DIRECTORY traces/ DESTINATION ${CMAKE_INSTALL_DATADIR}/pmixflow/traces FILES_MATCHING PATTERN "*.jsonl"
                                                                                            PATTERN "*.swf")
install(FILES examples/policies/CMakeLists.txt examples/policies/README.md examples/policies/smallest_first.cpp
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/policies)

# --- man pages and completion, made from the built programs --------------------------------
# Run at build time: a sanitizer build's leak check has nothing to say about printing help.
set(run_built ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 QT_QPA_PLATFORM=offscreen)
set(completion ${PROJECT_BINARY_DIR}/share/bash-completion/completions/pmixflow)
add_custom_command(OUTPUT ${completion}
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/bash-completion/completions
                   COMMAND ${run_built} sh -c "\"$0\" --completion bash >\"$1\"" $<TARGET_FILE:pmixflow> ${completion}
                   DEPENDS pmixflow VERBATIM COMMENT "Making the bash completion of pmixflow")
add_custom_target(pmixflow_completion ALL DEPENDS ${completion})
install(FILES ${completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

find_program(HELP2MAN help2man)
set(pages "")
function(pmixflow_man_page program help_option name)
  set(page ${PROJECT_BINARY_DIR}/share/man/man1/${program}.1)
  add_custom_command(OUTPUT ${page}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/man/man1
                     COMMAND ${run_built} ${HELP2MAN} --no-info --help-option=${help_option} --version-option=--version
                             --section=1 "--name=${name}" --output=${page} $<TARGET_FILE:${program}>
                     DEPENDS ${program} VERBATIM COMMENT "Making the man page of ${program} with help2man")
  set(pages ${pages} ${page} PARENT_SCOPE)
endfunction()
if(HELP2MAN)
  pmixflow_man_page(pmixflow --help-all "the PMIx allocation flow, simulated on SimGrid or emulated on OpenPMIx")
  if(TARGET pmixflow-view)
    pmixflow_man_page(pmixflow-view --help "show a pmixflow run from its event log")
  endif()
  add_custom_target(pmixflow_man_pages ALL DEPENDS ${pages})
  install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man pages are made or installed (scripts/setup.sh installs help2man)")
endif()

# --- the Debian package: cpack -G DEB in the build directory --------------------------------
# Installed under /usr; its Depends are read from the binaries by dpkg-shlibdeps (dpkg-dev).
set(PMIXFLOW_DEB_MAINTAINER "pmixflow maintainers <maintainers@invalid>"
    CACHE STRING "Maintainer field of the Debian package made by cpack -G DEB")
set(CPACK_PACKAGE_NAME pmixflow)
set(CPACK_PACKAGE_CONTACT "${PMIXFLOW_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "PMIx allocation flow (RM <-> scheduler): SimGrid simulator and OpenPMIx emulator")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
