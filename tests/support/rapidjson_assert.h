// SPDX-License-Identifier: GPL-2.0
//
// Force-included in every test (tests/CMakeLists.txt): the tests read the
// reports through RapidJSON, whose assertions are compiled out in release
// builds, where a member that is not there reads as an empty null value
// and a loop over it checks nothing. Here a failed assertion throws: the
// test case fails (or, inside a noexcept RapidJSON function, the process
// ends with the message).
#pragma once

#include <stdexcept>

#define RAPIDJSON_ASSERT(x) ((x) ? static_cast<void>(0) : throw std::logic_error("RapidJSON assertion failed: " #x))
