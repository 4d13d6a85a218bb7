// SPDX-License-Identifier: GPL-2.0
// The one Boost.Test main() every test executable links.
//
// Each test case runs through a wrapper that gives Boost.Test its %r15
// back (framework_register.h), the count of kernel code's blocks being
// kept there.
#define BOOST_TEST_MODULE sched-harness
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>
#include <boost/test/tree/traverse.hpp>
#include <boost/test/tree/observer.hpp>
#include <boost/test/tree/visitor.hpp>

#include "framework_register.h"

namespace {

#ifdef KSHIM_BLOCK_COUNTER_REGISTER
struct KeepFrameworkRegister : boost::unit_test::test_tree_visitor {
	void visit(const boost::unit_test::test_case &tc) override
	{
		// the property is read-only to all but test_case; the function
		// object itself is not const
		auto &run = const_cast<boost::function<void()> &>(tc.p_test_func.get());
		run = [case_body = run] {
			sh::test::FrameworkRegister framework;
			case_body();
		};
	}
};

// At the start of the run, when the data-driven cases have been made too
struct WrapCasesAtStart : boost::unit_test::test_observer {
	void test_start(boost::unit_test::counter_t, boost::unit_test::test_unit_id root) override
	{
		KeepFrameworkRegister keep;
		boost::unit_test::traverse_test_tree(root, keep, true);
	}
};
#endif

bool init_tests()
{
	if (!init_unit_test())
		return false;
#ifdef KSHIM_BLOCK_COUNTER_REGISTER
	static WrapCasesAtStart wrap;
	boost::unit_test::framework::register_observer(wrap);
#endif
	return true;
}

} // namespace

int main(int argc, char *argv[])
{
	return boost::unit_test::unit_test_main(&init_tests, argc, argv);
}
