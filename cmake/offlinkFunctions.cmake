# The part of find_package(offlink) shared by the installed package and
# the build tree's (offlinkConfig.cmake.in, offlinkBuildTreeConfig.cmake.in):
# the imported targets and offlink_link().  The including file has set
#   offlink_COMPAT_DIR, offlink_OFFSTUB_DIR, _offlink_bin, _offlink_stub_lib.

foreach(_offlink_tool offlink offlink-binary offlink-bundler)
  if(NOT TARGET offlink::${_offlink_tool})
    add_executable(offlink::${_offlink_tool} IMPORTED)
    set_target_properties(offlink::${_offlink_tool} PROPERTIES
      IMPORTED_LOCATION "${_offlink_bin}/${_offlink_tool}")
  endif()
endforeach()

if(NOT TARGET offlink::offstub)
  add_library(offlink::offstub SHARED IMPORTED)
  set_target_properties(offlink::offstub PROPERTIES
    IMPORTED_LOCATION "${_offlink_stub_lib}"
    IMPORTED_SONAME "liboffstub.so")
endif()

# The language whose compiler links target t: its LINKER_LANGUAGE when set,
# else the one CMake would pick from its sources (CUDA, HIP, then C++,
# then C: the same preference), into out.
function(_offlink_linker_language t out)
  get_target_property(_lang ${t} LINKER_LANGUAGE)
  if(_lang)
    set(${out} ${_lang} PARENT_SCOPE)
    return()
  endif()
  get_target_property(_srcs ${t} SOURCES)
  set(_lang "")
  foreach(_pref CUDA HIP CXX C)
    foreach(_s IN LISTS _srcs)
      get_source_file_property(_l "${_s}" LANGUAGE)
      if(NOT _l)
        get_filename_component(_ext "${_s}" LAST_EXT)
        string(TOLOWER "${_ext}" _ext)
        if(_ext MATCHES "^\\.(cu)$")
          set(_l CUDA)
        elseif(_ext MATCHES "^\\.(hip)$")
          set(_l HIP)
        elseif(_ext MATCHES "^\\.(cc|cpp|cxx|c\\+\\+|C)$")
          set(_l CXX)
        elseif(_ext MATCHES "^\\.c$")
          set(_l C)
        endif()
      endif()
      if(_l STREQUAL _pref)
        set(${out} ${_pref} PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

function(offlink_link)
  cmake_parse_arguments(PARSE_ARGV 0 _ol "VERBOSE" "" "")
  if(NOT _ol_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "offlink_link: name the targets to link through offlink")
  endif()
  foreach(_t IN LISTS _ol_UNPARSED_ARGUMENTS)
    if(NOT TARGET ${_t})
      message(FATAL_ERROR "offlink_link: ${_t} is not a target")
    endif()
    # -B<dir> is read by every clang driver; the offload link step then
    # runs <dir>/clang-linker-wrapper, which is offlink.
    target_link_options(${_t} PRIVATE "-B${offlink_COMPAT_DIR}")
    if(_ol_VERBOSE)
      target_link_options(${_t} PRIVATE "LINKER:--wrapper-verbose")
    endif()
    # Only the compiler that links the target matters: a project may build
    # its C with gcc and link its C++ offloading program with clang++.
    _offlink_linker_language(${_t} _lang)
    if(_lang AND NOT CMAKE_${_lang}_COMPILER_ID MATCHES "Clang")
      message(WARNING "offlink_link: ${_t} is linked by the ${_lang} compiler, "
                      "${CMAKE_${_lang}_COMPILER_ID} (${CMAKE_${_lang}_COMPILER}); "
                      "only clang runs an offloading link step")
    endif()
  endforeach()
endfunction()
