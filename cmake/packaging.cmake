# What `cmake --install` puts under the prefix:
#
#   bin/pmixflow, bin/pmixflow-view         the programs people run
#   libexec/pmixflow/pmixflow-party, -job   what `pmixflow emul` starts (install_layout.hpp)
#   include/pmixflow/policies/*.hpp         the policy interface: all a policy library needs
#   share/cmake/pmixflow/, share/pkgconfig/ find_package(pmixflow) -> pmixflow::policy; pkg-config
#   share/pmixflow/topologies, traces       the shipped node shapes (the default one) and scenarios
#   share/doc/pmixflow/examples/policies/   the example policy, buildable against the prefix
#
# No library of pmixflow is installed: a policy library links none (the interface is inline or
# virtual, examples/policies/CMakeLists.txt), and the core has no user outside pmixflow.
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
# Headers only: the package is the same on every architecture, so it lives under share/.
set(package_dir ${CMAKE_INSTALL_DATADIR}/cmake/pmixflow)
install(EXPORT pmixflowTargets NAMESPACE pmixflow:: DESTINATION ${package_dir})
configure_package_config_file(cmake/pmixflowConfig.cmake.in ${PROJECT_BINARY_DIR}/pmixflowConfig.cmake
                              INSTALL_DESTINATION ${package_dir})
# 0.x: a policy built against 0.1 is not promised to load in 0.2 (kPolicyApiVersion decides).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pmixflowConfigVersion.cmake COMPATIBILITY SameMinorVersion
                                 ARCH_INDEPENDENT)
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
