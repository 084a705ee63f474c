# find_package(curbi): imported targets curbi::curbi (libcurbi.so) and curbi::curbi_static (libcurbi.a with the
# system libraries it needs). Relocatable: every path is relative to this file, in <prefix>/lib/cmake/curbi/.
get_filename_component(_curbi_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
find_package(Threads REQUIRED)

if(NOT TARGET curbi::curbi)
  add_library(curbi::curbi SHARED IMPORTED)
  set_target_properties(curbi::curbi PROPERTIES
    IMPORTED_LOCATION "${_curbi_prefix}/lib/libcurbi.so"
    IMPORTED_SONAME "libcurbi.so.@MAJOR@"
    INTERFACE_INCLUDE_DIRECTORIES "${_curbi_prefix}/include")
endif()

if(NOT TARGET curbi::curbi_static)
  add_library(curbi::curbi_static STATIC IMPORTED)
  set_target_properties(curbi::curbi_static PROPERTIES
    IMPORTED_LOCATION "${_curbi_prefix}/lib/libcurbi.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_curbi_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m")
endif()

set(curbi_VERSION "@VERSION@")
unset(_curbi_prefix)
