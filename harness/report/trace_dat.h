// SPDX-License-Identifier: GPL-2.0
//
// A trace in trace-cmd's file format (trace.dat, version 6:
// trace-cmd.dat.v6(5)), which `trace-cmd report`, KernelShark and LISA
// read. Its records are the kernel's own: the binary records each event's
// TP_fast_assign writes (kshim::record_event()), with the formats of the
// image's TRACE_EVENT() definitions, laid out in per-CPU pages as the
// kernel's ring buffer lays them out. The bare tracepoints (PELT,
// util_est, sched_overutilized) have no ftrace event in the kernel; theirs
// are the harness's (sched/glue/sched_tp.h).
#pragma once

#include "harness/report/ftrace.h"
#include "harness/sim/simulator.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sh::report {

class TraceDatWriter : public sim::EventSink {
public:
	// Opens (truncates) `path`; the file is written at close(). Throws
	// std::runtime_error naming the file if it cannot be written.
	TraceDatWriter(const std::filesystem::path &path, unsigned nr_cpus, TraceEvents events = {});

	void event(const kshim_trace_event &ev, std::string_view current_comm, int current_pid) override;
	std::vector<std::string> recorded_events() const override;
	void recording(const kshim::EventFormat &format) override;
	void record(int cpu, std::uint64_t time_ns, std::span<const std::byte> record) override;

	// Writes the file and closes it; throws WriteError if it could not
	// be written whole (a full disk is an error, never a short file).
	void close();

private:
	// One CPU's ring buffer: whole pages, the last one being filled.
	struct CpuPages {
		std::vector<std::byte> data;
		std::size_t page = 0;		// offset of the page being filled
		std::size_t commit = 0;		// bytes of events in it
		std::uint64_t last_ns = 0;	// the time of its last event
		bool open = false;
	};
	void start_page(CpuPages &cpu, std::uint64_t time_ns);
	void write_all(std::FILE *f);

	TraceEvents events_;
	std::vector<CpuPages> cpus_;
	std::vector<kshim::EventFormat> formats_;
	std::vector<std::string> comms_;	// saved_cmdlines: by pid ("": none)
	struct Closer {
		void operator()(std::FILE *f) const { std::fclose(f); }
	};
	std::unique_ptr<std::FILE, Closer> file_;
	std::filesystem::path path_;
};

} // namespace sh::report
