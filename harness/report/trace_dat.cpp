// SPDX-License-Identifier: GPL-2.0
#include "harness/report/trace_dat.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

namespace sh::report {
namespace {

static_assert(std::endian::native == std::endian::little, "trace.dat is written in the host's byte order, "
							   "flagged little-endian");

// The ring buffer's layout (kernel/trace/ring_buffer.c), which the file's
// header_page and header_event sections describe to the reader: pages of
// page_size bytes, each a header (the time of its first event, then the
// bytes committed) and its events; an event is a 32-bit word (type_len: 5
// bits, the time since the previous event: 27 bits) and its data.
constexpr std::size_t page_size = 4096;
constexpr std::size_t page_header = 16;	// u64 time_stamp, local_t commit (a 64-bit kernel)
constexpr std::size_t page_data = page_size - page_header;	// BUF_PAGE_SIZE
constexpr unsigned type_len_max = 28;		// RINGBUF_TYPE_DATA_TYPE_LEN_MAX
constexpr unsigned type_padding = 29;		// RINGBUF_TYPE_PADDING
constexpr unsigned type_time_extend = 30;	// RINGBUF_TYPE_TIME_EXTEND
constexpr unsigned type_time_stamp = 31;	// RINGBUF_TYPE_TIME_STAMP
constexpr unsigned delta_bits = 27;

// What tracefs shows in events/header_page and events/header_event
// (ring_buffer_print_page_header(), ring_buffer_print_entry_header()), for
// the layout above, as an arm64 kernel prints it (char is unsigned there).
std::string header_page()
{
	return fmt::format("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			   "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
			   "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
			   "\tfield: char data;\toffset:{};\tsize:{};\tsigned:0;\n",
			   page_header, page_data);
}

std::string header_event()
{
	return fmt::format("# compressed entry header\n"
			   "\ttype_len    :    5 bits\n"
			   "\ttime_delta  :   27 bits\n"
			   "\tarray       :   32 bits\n"
			   "\n"
			   "\tpadding     : type == {}\n"
			   "\ttime_extend : type == {}\n"
			   "\ttime_stamp : type == {}\n"
			   "\tdata max type_len  == {}\n",
			   type_padding, type_time_extend, type_time_stamp, type_len_max);
}

template <typename T> void put(std::vector<std::byte> &out, T value)
{
	const auto bytes = std::bit_cast<std::array<std::byte, sizeof(T)>>(value);
	out.insert(out.end(), bytes.begin(), bytes.end());
}

void put_text(std::vector<std::byte> &out, std::string_view text, bool nul = false)
{
	const auto *p = reinterpret_cast<const std::byte *>(text.data());
	out.insert(out.end(), p, p + text.size());
	if (nul)
		out.push_back(std::byte{0});
}

template <typename Size> void put_sized(std::vector<std::byte> &out, std::string_view text)
{
	put(out, static_cast<Size>(text.size()));
	put_text(out, text);
}

template <typename T> void poke(std::vector<std::byte> &out, std::size_t at, T value)
{
	const auto bytes = std::bit_cast<std::array<std::byte, sizeof(T)>>(value);
	std::copy(bytes.begin(), bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
}

// trace-cmd's options (trace-cmd.h): the trace clock's file, its choice
// in brackets.
constexpr std::uint16_t option_done = 0;
constexpr std::uint16_t option_trace_clock = 4;

} // namespace

TraceDatWriter::TraceDatWriter(const std::filesystem::path &path, unsigned nr_cpus, TraceEvents events)
	: events_(std::move(events)), cpus_(nr_cpus), file_(std::fopen(path.c_str(), "w")), path_(path)
{
	if (!file_)
		throw std::runtime_error(fmt::format("{}: cannot write the trace: {}", path.string(),
						     std::strerror(errno)));
}

void TraceDatWriter::event(const kshim_trace_event &ev, std::string_view current_comm, int current_pid)
{
	// saved_cmdlines: the name of every task a record names as current
	(void)ev;
	if (current_pid <= 0)
		return;
	const auto pid = static_cast<std::size_t>(current_pid);
	if (pid >= comms_.size())
		comms_.resize(pid + 1);
	if (comms_[pid].empty())
		comms_[pid] = current_comm;
}

std::vector<std::string> TraceDatWriter::recorded_events() const
{
	std::vector<std::string> names;
	for (const auto &e : trace_events())
		if (events_.selects(e.name))
			names.emplace_back(e.name);
	return names;
}

void TraceDatWriter::recording(const kshim::EventFormat &format)
{
	formats_.push_back(format);
}

void TraceDatWriter::start_page(CpuPages &cpu, std::uint64_t time_ns)
{
	if (cpu.open)
		poke(cpu.data, cpu.page + 8, static_cast<std::uint64_t>(cpu.commit));
	cpu.page = cpu.data.size();
	cpu.data.resize(cpu.data.size() + page_size);
	poke(cpu.data, cpu.page, time_ns);
	cpu.commit = 0;
	cpu.last_ns = time_ns;
	cpu.open = true;
}

// rb_update_event()'s encoding: the event's length in type_len when its
// data fits in 28 words, else in the word after the header; a time extend
// first when the time since the previous event needs more than 27 bits.
void TraceDatWriter::record(int cpu_index, std::uint64_t time_ns, std::span<const std::byte> record)
{
	auto &cpu = cpus_.at(static_cast<std::size_t>(cpu_index));
	const auto padded = (record.size() + 3) & ~std::size_t{3};
	const bool small = padded <= type_len_max * 4;
	const auto event_size = (small ? 4 : 8) + padded;
	if (event_size > page_data)
		throw std::logic_error(fmt::format("trace.dat: a record of {} bytes", record.size()));
	if (!cpu.open || time_ns < cpu.last_ns)
		start_page(cpu, time_ns);
	auto delta = time_ns - cpu.last_ns;
	const bool extend = delta >> delta_bits;
	if (cpu.commit + (extend ? 8 : 0) + event_size > page_data) {
		start_page(cpu, time_ns);
		delta = 0;
	}
	auto at = cpu.page + page_header + cpu.commit;
	if (delta >> delta_bits) {
		poke(cpu.data, at, static_cast<std::uint32_t>(type_time_extend | (delta << 5)));
		poke(cpu.data, at + 4, static_cast<std::uint32_t>(delta >> delta_bits));
		at += 8;
		cpu.commit += 8;
		delta = 0;
	}
	poke(cpu.data, at, static_cast<std::uint32_t>((small ? padded / 4 : 0) | (delta << 5)));
	at += 4;
	if (!small) {
		poke(cpu.data, at, static_cast<std::uint32_t>(padded + 4));
		at += 4;
	}
	std::copy(record.begin(), record.end(), cpu.data.begin() + static_cast<std::ptrdiff_t>(at));
	cpu.commit += event_size;
	cpu.last_ns = time_ns;
}

void TraceDatWriter::write_all(std::FILE *f)
{
	std::vector<std::byte> head;
	put_text(head, "\x17\x08\x44" "tracing" "6", true);
	head.push_back(std::byte{0});	// little-endian
	head.push_back(std::byte{8});	// long: 64 bits
	put(head, static_cast<std::uint32_t>(page_size));

	put_text(head, "header_page", true);
	put_sized<std::uint64_t>(head, header_page());
	put_text(head, "header_event", true);
	put_sized<std::uint64_t>(head, header_event());

	// ftrace's own entries (print, for trace_marker), then the events by system
	auto is_ftrace = [](const kshim::EventFormat &f) { return f.system == "ftrace"; };
	put(head, static_cast<std::uint32_t>(std::count_if(formats_.begin(), formats_.end(), is_ftrace)));
	for (const auto &f : formats_)
		if (is_ftrace(f))
			put_sized<std::uint64_t>(head, f.format);
	std::vector<std::string_view> systems;
	for (const auto &f : formats_)
		if (!is_ftrace(f) && std::find(systems.begin(), systems.end(), f.system) == systems.end())
			systems.push_back(f.system);
	put(head, static_cast<std::uint32_t>(systems.size()));
	for (const auto system : systems) {
		put_text(head, system, true);
		put(head, static_cast<std::uint32_t>(std::count_if(
				  formats_.begin(), formats_.end(), [&](const auto &f) { return f.system == system; })));
		for (const auto &f : formats_)
			if (f.system == system)
				put_sized<std::uint64_t>(head, f.format);
	}
	std::string kallsyms;
	for (const auto &f : formats_)
		kallsyms += f.kallsyms;
	put_sized<std::uint32_t>(head, kallsyms);
	put(head, std::uint32_t{0});	// printk formats
	std::string cmdlines;
	for (std::size_t pid = 0; pid < comms_.size(); pid++)
		if (!comms_[pid].empty())
			cmdlines += fmt::format("{} {}\n", pid, comms_[pid]);
	put_sized<std::uint64_t>(head, cmdlines);

	put(head, static_cast<std::uint32_t>(cpus_.size()));
	put_text(head, "options  ", true);
	put(head, option_trace_clock);
	put_sized<std::uint32_t>(head, "[local] global\n");
	put(head, option_done);
	put_text(head, "flyrecord", true);
	// each CPU's data, page-aligned after the header
	const auto table = head.size();
	head.resize(table + 16 * cpus_.size());
	auto offset = (head.size() + page_size - 1) / page_size * page_size;
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		auto &cpu = cpus_[c];
		if (cpu.open)
			poke(cpu.data, cpu.page + 8, static_cast<std::uint64_t>(cpu.commit));
		poke(head, table + 16 * c, static_cast<std::uint64_t>(offset));
		poke(head, table + 16 * c + 8, static_cast<std::uint64_t>(cpu.data.size()));
		offset += cpu.data.size();
	}
	head.resize((head.size() + page_size - 1) / page_size * page_size);

	auto write = [&](std::span<const std::byte> bytes) {
		if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
			throw WriteError(fmt::format("{}: writing the trace failed: {}", path_.string(),
						     std::strerror(errno)));
	};
	write(head);
	for (const auto &cpu : cpus_)
		write(cpu.data);
}

void TraceDatWriter::close()
{
	if (!file_)
		return;
	write_all(file_.get());
	const bool failed = std::fflush(file_.get()) != 0 || std::ferror(file_.get()) != 0;
	const int error = errno;
	if (std::fclose(file_.release()) != 0 || failed)
		throw WriteError(fmt::format("{}: writing the trace failed: {}", path_.string(),
					     std::strerror(failed ? error : errno)));
}

} // namespace sh::report
