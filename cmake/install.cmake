# Install rules and package config: `cmake --install build --prefix P` puts bin/chorus, lib/libchorus.a, the plugins
# (lib/chorus/libchorus_*.so, installed by chorus_add_plugin in CMakeLists.txt), the public headers, the man page,
# the bash completion and lib/cmake/chorus (find_package(chorus) -> chorus::chorus) under P.
include(CMakePackageConfigHelpers)

install(TARGETS chorus RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS chorus_lib EXPORT chorusTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Headers keep the src/chorus layout; the generated Chakra protobuf header lives in the build tree and stays private.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/chorus DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/generated/chorus/core/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/chorus/core)

set(CHORUS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/chorus)
install(EXPORT chorusTargets NAMESPACE chorus:: DESTINATION ${CHORUS_CMAKE_DIR})
configure_package_config_file(cmake/chorusConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/chorusConfig.cmake
                              INSTALL_DESTINATION ${CHORUS_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/chorusConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/chorusConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/chorusConfigVersion.cmake
        DESTINATION ${CHORUS_CMAKE_DIR})

# The man page and the bash completion come from the built program itself (`chorus --generate ...` walks its
# CLI11 app), so they list exactly the options it has.
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/chorus.1
                   COMMAND chorus --generate man > ${CMAKE_CURRENT_BINARY_DIR}/chorus.1
                   DEPENDS chorus VERBATIM)
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/chorus.bash-completion
                   COMMAND chorus --generate bash-completion > ${CMAKE_CURRENT_BINARY_DIR}/chorus.bash-completion
                   DEPENDS chorus VERBATIM)
add_custom_target(chorus_docs ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/chorus.1
                                          ${CMAKE_CURRENT_BINARY_DIR}/chorus.bash-completion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/chorus.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/chorus.bash-completion DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME chorus)

# A downstream project built against a temporary install of this build (tests/packaging/consumer).
if(CHORUS_BUILD_TESTS)
  enable_testing()
  add_test(NAME packaging_consumer
           COMMAND ${CMAKE_COMMAND} -DCHORUS_BUILD_DIR=${CMAKE_CURRENT_BINARY_DIR}
                   -DCONSUMER_SOURCE_DIR=${PROJECT_SOURCE_DIR}/tests/packaging/consumer
                   -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/packaging-consumer -DGENERATOR=${CMAKE_GENERATOR}
                   -DLAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER} -P ${PROJECT_SOURCE_DIR}/tests/packaging/consumer_test.cmake)
endif()
