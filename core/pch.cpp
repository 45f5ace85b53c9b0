// The translation unit that builds the core's precompiled header (core/CMakeLists.txt).
