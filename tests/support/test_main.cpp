// SPDX-License-Identifier: GPL-2.0
// The one Boost.Test main() every test executable links.
#define BOOST_TEST_MODULE sched-harness
#include <boost/test/unit_test.hpp>
