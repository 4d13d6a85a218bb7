// SPDX-License-Identifier: GPL-2.0
//
// The harness entering kernel code: what the code run in the guard's scope
// executes is kernel time of one kind (kshim/cost.h), nested guards
// restoring the kind around them. KernelEntry(KSHIM_COST_NONE) marks a
// read the harness makes for its own report (--count-eas): not kernel time.
#pragma once

#include <kshim/cost.h>

namespace sh::sim {

class KernelEntry {
public:
	explicit KernelEntry(kshim_cost_kind kind) : previous_(kshim_cost_begin(kind)) {}
	~KernelEntry() { kshim_cost_end(previous_); }
	KernelEntry(const KernelEntry &) = delete;
	KernelEntry &operator=(const KernelEntry &) = delete;

private:
	int previous_;
};

} // namespace sh::sim
