// The translation unit that builds a test folder's precompiled header (tests/CMakeLists.txt).
