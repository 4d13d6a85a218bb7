// SPDX-License-Identifier: GPL-2.0
//
// How Boost.Test prints the Platform's value types when a BOOST_TEST
// comparison fails: without these, comparing a std::optional or an enum
// would not compile, and the failure message is what says which value the
// loader read.
#pragma once

#include "dts/platform.h"

#include <boost/test/unit_test.hpp>
#include <optional>
#include <ostream>

namespace boost::test_tools::tt_detail {

template <typename T>
struct print_log_value<std::optional<T>> {
	void operator()(std::ostream &os, const std::optional<T> &value)
	{
		if (value)
			print_log_value<T>()(os, *value);
		else
			os << "nullopt";
	}
};

template <>
struct print_log_value<sh::dts::TripType> {
	void operator()(std::ostream &os, sh::dts::TripType type) { os << sh::dts::to_string(type); }
};

template <>
struct print_log_value<sh::dts::OppBinding> {
	void operator()(std::ostream &os, sh::dts::OppBinding b) { os << sh::dts::to_string(b); }
};

} // namespace boost::test_tools::tt_detail
