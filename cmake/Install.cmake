# The install prefix as CANN lays it out: include/acl/..., lib64/libascendcl.so (+ libacl_rt.so),
# lib64/ascend-run/ plugins, share/ascend-run/configs, bin/ascend-run, a CMake package and a
# pkg-config file.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/api/include/acl ${PROJECT_SOURCE_DIR}/api/include/arun
        ${PROJECT_SOURCE_DIR}/api/include/ge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Plugin authors build against the plugin interface headers.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/arun/plugin ${PROJECT_SOURCE_DIR}/core/include/arun/core
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/arun)

install(TARGETS ascendcl LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(CODE "file(CREATE_LINK libascendcl.so \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libacl_rt.so\" SYMBOLIC)")

# aclsysGetVersionStr reads share/info/<package>/version.info.
file(WRITE ${PROJECT_BINARY_DIR}/share/info/runtime/version.info "Version=${PROJECT_VERSION}\n")
file(WRITE ${PROJECT_BINARY_DIR}/share/info/ascend-run/version.info "Version=${PROJECT_VERSION}\n")
install(DIRECTORY ${PROJECT_BINARY_DIR}/share/info DESTINATION ${CMAKE_INSTALL_DATADIR})

include(CMakePackageConfigHelpers)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ascend-runConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ascend-runConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/ascend-run
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ascend-runConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ascend-runConfig.cmake ${PROJECT_BINARY_DIR}/ascend-runConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/ascend-run)  # share/: searched by CMake on Debian

configure_file(${PROJECT_SOURCE_DIR}/cmake/ascend-run.pc.in ${PROJECT_BINARY_DIR}/ascend-run.pc @ONLY)
# share/pkgconfig: on pkg-config's default search path for /usr and /usr/local on Debian (lib64/ is not).
install(FILES ${PROJECT_BINARY_DIR}/ascend-run.pc DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig)

# arun_add_kernel_binary for installed users (included by ascend-runConfig.cmake).
install(FILES ${PROJECT_SOURCE_DIR}/cmake/ArunKernelBinary.cmake DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/ascend-run)
