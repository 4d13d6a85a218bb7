// SPDX-License-Identifier: GPL-2.0
#include "harness/cli/cli.h"
#include "harness/experiment/engine.h"

#include "dts/platform.h"
#include "support/tools.h"
#include "harness/report/ftrace.h"
#include "harness/workload/workload.h"
#include "kernel-shim/kernel.h"
#include "harness/image/image.h"
#include "harness/sim/thermal_model.h"

#include <boost/program_options.hpp>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <unistd.h>
#include <exception>
#include <fmt/format.h>
#include <iostream>
#include <sstream>

#ifndef SCHED_HARNESS_KERNEL_TREE
#define SCHED_HARNESS_KERNEL_TREE ""
#endif
#ifndef SCHED_HARNESS_VERSION
#define SCHED_HARNESS_VERSION "0"
#endif

namespace po = boost::program_options;

namespace sh::cli {

namespace {

struct Command {
	std::string_view name;
	std::string_view summary;
	int (*run)(const Context &, const std::vector<std::string> &);
};

constexpr Command commands[] = {
	{"run", "a workload on a board through the kernel's scheduler: energy, latencies, fingerprint",
	 run_command},
	{"compare", "one scenario, repeated over seeds under two variants of the kernel's options: statistics and verdicts",
	 compare_command},
	{"sweep", "one scenario over a grid of parameter values (kernels, options, boards, workloads), repeated: a table and a plot",
	 sweep_command},
	{"check", "a suite's expectations against the kernel's runs, as KTAP (exit 1 on a failure)", check_command},
	{"diff", "two runs of one scenario: where their decisions first part, and their metrics", diff_command},
	{"bisect", "the first patch of a series that changes the behaviour (a suite, or expectations)",
	 bisect_command},
	{"workloads", "the built-in workloads and their parameters", workloads_command},
	{"suite", "suites of scenarios: suite list | suite show SUITE (each scenario's options and expectations)",
	 suite_command},
	{"platform", "a board read from its device tree: platform list | platform show BOARD",
	 platform_command},
	{"kernel", "the kernel tree, the files compiled from it and kernel images of it: "
		   "kernel info | files | build | list | prune",
	 kernel_command},
	{"engine-task", "one task of a plan written for another engine (--engine slurm|list): what its jobs run",
	 engine_task_command},
};

std::string usage(const po::options_description &global)
{
	std::string text = "usage: sched-harness [--kernel-src DIR] COMMAND [ARGS...]\n\ncommands:\n";
	for (const auto &c : commands)
		text += fmt::format("  {:<10} {}\n", c.name, c.summary);
	std::ostringstream opts;
	opts << global;
	return text + "\n" + opts.str() + "\nRun 'sched-harness COMMAND --help' for a command's options.\n";
}

// --kernel-src, then $SCHED_HARNESS_KERNEL_SRC, then the tree of the
// image of another series (--kernel 6.12: its boards and DT includes, as
// that series' own build reads them), then the tree the build used.
std::filesystem::path kernel_tree(const po::variables_map &vm)
{
	if (vm.count("kernel-src"))
		return vm["kernel-src"].as<std::string>();
	if (const char *env = std::getenv("SCHED_HARNESS_KERNEL_SRC"); env && *env)
		return env;
	if (const auto image = image::image_in_use(); image && image->manifest.of_series())
		return image->manifest.tree;
	return SCHED_HARNESS_KERNEL_TREE;
}

// This program's binary, to run again (with an image, in the other flavour).
std::filesystem::path this_binary()
{
	std::error_code ec;
	auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
	if (ec)
		throw std::runtime_error("cannot find the sched-harness binary: " + ec.message());
	return self;
}

// The same command line in this program, with the image's kernel: the
// dynamic loader takes libksched.so from LD_LIBRARY_PATH before the
// program's RUNPATH.
int run_image(const std::filesystem::path &dir, const std::string &what, char **argv)
{
	std::string path = dir.string();
	if (const char *old = std::getenv("LD_LIBRARY_PATH"); old && *old)
		path += std::string(":") + old;
	setenv("LD_LIBRARY_PATH", path.c_str(), 1);
	setenv("SCHED_HARNESS_IMAGE", dir.c_str(), 1);
	setenv("SCHED_HARNESS_IMAGE_FOR", what.c_str(), 1);	// resolved: the program again does not
	const auto self = this_binary();
	std::cout.flush();
	execv(self.c_str(), argv);
	throw std::runtime_error(fmt::format("cannot run {} with the image {}: {}", self.string(), dir.string(),
					     std::strerror(errno)));
}

// `sweep --kernel` (after the command) is the sweep's option, the kernel
// each of its runs boots, not the global one: it is left to the sweep,
// as an option the global parser did not know. Whether the sweep names a
// kernel (its --kernel, or --image as it was called before).
bool sweep_names_kernel(po::parsed_options &parsed)
{
	bool after_sweep = false, names = false;
	for (auto &option : parsed.options) {
		if (option.string_key == "command") {
			if (option.value.empty() || option.value.front() != "sweep")
				return false;
			after_sweep = true;
		} else if (after_sweep && (option.string_key == "kernel" || option.string_key == "image")) {
			option.unregistered = true;
			names = true;
		}
	}
	return names;
}

int run(int argc, char **argv)
{
	po::options_description global("global options");
	global.add_options()
		("help,h", "show this help")
		("version", "print the version")
		("verbose,v", "print the kernel's log (printk) on stderr")
		("kernel-src", po::value<std::string>()->value_name("DIR"),
		 "kernel tree for board names and DT includes (default: the tree sched-harness was built "
		 "with, or $SCHED_HARNESS_KERNEL_SRC)")
		("kernel", po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"),
		 "run with this kernel image ('sched-harness kernel build'/'kernel list') instead of the "
		 "build's own; a kernel tree or a patch builds its image first (exit 125 when it does not "
		 "build: 'git bisect run' skips the commit)")
		("arch", po::value<std::string>()->value_name("arm|arm64"),
		 "boot boards with this kernel flavour instead of their own architecture's (32-bit arm "
		 "boards boot the arm flavour, the others arm64); with 'kernel info', the flavour shown");
	po::options_description hidden;
	hidden.add_options()
		("command", po::value<std::string>())
		("args", po::value<std::vector<std::string>>());
	po::options_description all;
	all.add(global).add(hidden);
	po::positional_options_description positional;
	positional.add("command", 1).add("args", -1);

	auto parsed = po::command_line_parser(argc, argv)
			      .options(all)
			      .positional(positional)
			      .allow_unregistered()
			      .run();
	const bool sweep_kernel = sweep_names_kernel(parsed);
	po::variables_map vm;
	po::store(parsed, vm);
	po::notify(vm);
	if (sweep_kernel && vm.count("kernel"))
		throw UsageError{"--kernel before sweep and sweep --kernel: choose one (sweep --kernel is the "
				 "kernel of each run, 'default' the build's own)"};

	if (vm.count("version")) {
		std::cout << "sched-harness " << SCHED_HARNESS_VERSION << "\n";
		return exit_ok;
	}
	if (!vm.count("command")) {
		if (vm.count("help")) {
			std::cout << usage(global);
			return exit_ok;
		}
		throw UsageError{"no command given (try --help)"};
	}

	// --kernel: this program again, loading the image's libksched.so
	if (vm.count("kernel")) {
		const auto what = vm["kernel"].as<std::string>();
		const char *loaded_for = std::getenv("SCHED_HARNESS_IMAGE_FOR");
		// the build's own series by name is the build's own kernel: no
		// image, but out of an image's environment (a run of `--kernel 6.1`
		// started by a command running another image) this program again
		if ((!loaded_for || what != loaded_for) && image::names_own_kernel(what)) {
			if (const char *in_image = std::getenv("SCHED_HARNESS_IMAGE"); in_image && *in_image)
				return run_image(image::own_kernel_dir(), what, argv);
		} else if (!loaded_for || what != loaded_for) {
			std::filesystem::path dir;
			try {
				dir = image::resolve(what, std::cerr);
			} catch (const std::invalid_argument &e) {
				throw UsageError{e.what()};
			} catch (const image::BadPatch &e) {
				std::cerr << "sched-harness: error: --kernel " << what << " does not build: " << e.what()
					  << "\n";
				return exit_unbuildable;
			}
			return run_image(dir, what, argv);
		}
	}

	auto name = vm["command"].as<std::string>();
	auto rest = po::collect_unrecognized(parsed.options, po::include_positional);
	rest.erase(rest.begin());	// the command name itself
	if (vm.count("help"))
		rest.push_back("--help");

	Context ctx{kernel_tree(vm), std::cout, std::cerr, vm.count("verbose") > 0, std::nullopt};
	if (vm.count("arch")) {
		const auto arch = vm["arch"].as<std::string>();
		if (arch != "arm" && arch != "arm64")
			throw UsageError{fmt::format("--arch {}: say arm or arm64", arch)};
		ctx.arch = arch == "arm" ? dts::Arch::arm : dts::Arch::arm64;
		if (arch != kshim::build_info().flavour)
			throw kshim::WrongFlavour(arch, "--arch " + arch);
	}
	for (const auto &c : commands)
		if (c.name == name)
			return c.run(ctx, rest);
	throw UsageError{fmt::format("unknown command '{}' (try --help)", name)};
}

} // namespace

void validate(boost::any &out, const std::vector<std::string> &values, Unsigned *, long)
{
	po::validators::check_first_occurrence(out);
	const std::string &text = po::validators::get_single_string(values);
	Unsigned u;
	const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), u.value);
	if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
		throw po::invalid_option_value(text);	// "-1", "2^64", "1e3"
	out = u;
}

unsigned bounded_option(const po::variables_map &vm, const char *name, unsigned max)
{
	const auto v = vm[name].as<Unsigned>().value;
	if (v > max)
		throw UsageError{fmt::format("--{} {}: at most {}", name, v, max)};
	return static_cast<unsigned>(v);
}

std::optional<po::variables_map> parse_subcommand(const Context &ctx, const std::vector<std::string> &args,
						  const po::options_description &options,
						  const po::options_description &hidden,
						  const po::positional_options_description &positional,
						  std::string_view usage)
{
	po::options_description all;
	all.add(options).add(hidden);
	po::variables_map vm;
	po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
	po::notify(vm);
	if (!vm.count("help"))
		return vm;
	std::ostringstream help;
	help << usage << "\n" << options;
	ctx.out << help.str();
	return std::nullopt;
}

dts::Platform load_board(const Context &ctx, const std::string &board, const po::variables_map &vm)
{
	dts::LoadOptions load;
	load.kernel_tree = ctx.kernel_tree;
	if (vm.count("overlay"))
		for (const auto &o : vm["overlay"].as<std::vector<std::string>>())
			load.overlays.emplace_back(o);
	const auto file = dts::resolve_board(board, ctx.kernel_tree);
	// kshim::boot() refuses a board of the other flavour (WrongFlavour):
	// main() then runs the other binary. When the board's folder says so,
	// before its device tree is read here as well as there.
	if (const auto arch = dts::arch_of_source(file);
	    arch && !ctx.arch && dts::to_string(*arch) != kshim::build_info().flavour)
		throw kshim::WrongFlavour(std::string(dts::to_string(*arch)),
					  fmt::format("{} is an {} board (its source is under arch/{}/); this "
						      "kernel build is the {} flavour",
						      file.string(), dts::to_string(*arch), dts::to_string(*arch),
						      kshim::build_info().flavour));
	auto platform = dts::load_platform(file, load);
	if (ctx.arch) {
		platform.arch = *ctx.arch;
		platform.arch_reason = "--arch";
	}
	return platform;
}

po::options_description kernel_boot_options()
{
	po::options_description options("kernel options");
	options.add_options()
		("cmdline", po::value<std::string>()->value_name("ARGS"),
		 "kernel command line, through the kernel's __setup()/early_param() handlers "
		 "(e.g. \"sched_thermal_decay_shift=3\")")
		("sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "set a sysctl after boot through its own handler (e.g. kernel.sched_energy_aware=0); "
		 "repeatable")
		("feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "switch a scheduler feature of features.h (e.g. UTIL_EST=off, or NO_UTIL_EST); "
		 "repeatable")
		("seed", po::value<Unsigned>()->default_value(Unsigned{0}, "0"), "seed of the kernel's random numbers")
		("thermal-governor", po::value<std::string>()->value_name("NAME"),
		 "every thermal zone's governor (step_wise, the default, or power_allocator), as written "
		 "to its sysfs policy file after boot");
	return options;
}

kshim::BootOptions boot_options(const po::variables_map &vm)
{
	kshim::BootOptions boot;
	if (vm.count("cmdline"))
		boot.cmdline = vm["cmdline"].as<std::string>();
	if (vm.count("sysctl"))
		boot.sysctls = vm["sysctl"].as<std::vector<std::string>>();
	if (vm.count("feature"))
		boot.features = vm["feature"].as<std::vector<std::string>>();
	boot.seed = vm["seed"].as<Unsigned>().value;
	if (vm.count("thermal-governor"))
		boot.thermal_governor = vm["thermal-governor"].as<std::string>();
	return boot;
}

int kernel_warnings_status(const Context &ctx)
{
	const auto &warnings = kshim::kernel_warnings();
	for (const auto &w : warnings)
		ctx.err << fmt::format("sched-harness: kernel WARNING at {}:{} ({}): {}\n", w.file, w.line,
				       w.function, w.text);
	return warnings.empty() ? exit_ok : exit_kernel_fault;
}

namespace {

// One binary per kernel flavour, side by side: sched-harness (arm64) and
// sched-harness-arm. A board of the other flavour re-runs the same command
// line in the other binary (nothing has been printed yet: commands format
// their whole result first).
int run_flavour(const std::string &flavour, char **argv, const std::string &why)
{
	const auto self = this_binary();
	const auto name = flavour == "arm64" ? std::string("sched-harness") : "sched-harness-" + flavour;
	const auto other = self.parent_path() / name;
	if (other == self)
		throw std::runtime_error(fmt::format("{}: this binary is the {} flavour already", why, flavour));
	std::cout.flush();
	execv(other.c_str(), argv);
	std::cerr << fmt::format("sched-harness: error: {} needs the {} kernel flavour, {}: {}\n", why, flavour,
				 other.string(), std::strerror(errno));
	return exit_internal;
}

// The image of --kernel has no library of this binary's flavour yet: build
// it, then run the same command line again, the loader finding it now
// (nothing has been printed yet, as with run_flavour()). What else the
// build throws, main() reports as it reports a command's.
int run_with_flavour_built(const kshim::ImageLacksFlavour &lacking, char **argv, const std::string &built_before)
{
	if (built_before == lacking.image + ":" + lacking.flavour) {
		std::cerr << "sched-harness: internal error: " << lacking.what() << ", having built it\n";
		return exit_internal;
	}
	const char *what = std::getenv("SCHED_HARNESS_IMAGE_FOR");
	try {
		image::add_flavour(lacking.image, lacking.flavour, std::cerr);
	} catch (const image::BadPatch &e) {
		std::cerr << "sched-harness: error: --kernel " << (what ? what : lacking.image.c_str())
			  << " does not build: " << e.what() << "\n";
		return exit_unbuildable;
	} catch (const std::invalid_argument &e) {
		throw UsageError{e.what()};
	}
	const auto self = this_binary();
	setenv("SCHED_HARNESS_IMAGE_BUILT", (lacking.image + ":" + lacking.flavour).c_str(), 1);
	std::cout.flush();
	execv(self.c_str(), argv);
	std::cerr << fmt::format("sched-harness: error: cannot run {} again with the image {}: {}\n", self.string(),
				 lacking.image, std::strerror(errno));
	return exit_internal;
}

// Runs body (a command, a flavour's build), mapping what it throws to the
// tool's exit status and a message on stderr.
template <typename Body>
int reported(char **argv, Body body)
{
	try {
		return body();
	} catch (const kshim::WrongFlavour &e) {
		kshim::disarm_watchdog();	// boot() may refuse the board with it armed; it outlives execv()
		return run_flavour(e.needed, argv, e.what());
	} catch (const UsageError &e) {
		std::cerr << "sched-harness: error: " << e.message << "\n";
		return exit_bad_input;
	} catch (const po::error &e) {
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_bad_input;
	} catch (const kshim::BadParameter &e) {
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_bad_input;
	} catch (const kshim::KernelFault &e) {
		std::cerr << "sched-harness: " << e.what() << "\n";
		return exit_kernel_fault;
	} catch (const workload::Error &e) {
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_bad_input;
	} catch (const dts::Error &e) {
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_bad_input;
	} catch (const support::ToolError &e) {
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_bad_input;
	} catch (const sim::thermal::Error &e) {
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_bad_input;
	} catch (const report::WriteError &e) {
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_internal;
	} catch (const experiment::RunsMissing &e) {
		// not the kernel's answer, nor bad input: git bisect run stops
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_internal;
	} catch (const experiment::Error &e) {
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_bad_input;
	} catch (const image::CacheFull &e) {
		// the machine's state, not the tool's fault: said as bad input is
		std::cerr << "sched-harness: error: " << e.what() << "\n";
		return exit_bad_input;
	} catch (const image::BuildError &e) {
		std::cerr << "sched-harness: kernel build failed: " << e.what() << "\n";
		return exit_internal;
	} catch (const std::exception &e) {
		std::cerr << "sched-harness: internal error: " << e.what() << "\n";
		return exit_internal;
	}
}

} // namespace

// The report is the result: output that did not reach its file (a full
// disk, a closed pipe) is an error, not a silent exit 0.
int flushed(int status)
{
	std::cout.flush();
	if (std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout))
		return status;
	const int err = errno;
	std::cerr << "sched-harness: error: writing the output failed: "
		  << (err ? std::strerror(err) : "stream error") << "\n";
	return status == exit_ok ? exit_internal : status;
}

int main(int argc, char **argv)
{
	kshim::install_oops_handlers();
	support::remove_temporary_dirs_on_signals();
	// set by run_with_flavour_built() for the run it starts, not for that run's children
	std::string built_before;
	if (const char *built = std::getenv("SCHED_HARNESS_IMAGE_BUILT")) {
		built_before = built;
		unsetenv("SCHED_HARNESS_IMAGE_BUILT");
	}
	// an image's missing flavour is built after the command's handlers
	// returned, under reported()'s own: its errors are reported alike
	std::optional<kshim::ImageLacksFlavour> lacking;
	const int status = reported(argv, [&] {
		try {
			return flushed(run(argc, argv));
		} catch (const kshim::ImageLacksFlavour &e) {
			lacking = e;
			return exit_internal;
		}
	});
	if (!lacking)
		return status;
	kshim::disarm_watchdog();	// the build is not kernel code, however long it takes
	return reported(argv, [&] { return run_with_flavour_built(*lacking, argv, built_before); });
}

} // namespace sh::cli
