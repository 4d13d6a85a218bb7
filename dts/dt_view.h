// SPDX-License-Identifier: GPL-2.0
//
// Read-only typed access to a validated blob, in the vocabulary of the
// kernel's of_* API (of_property_read_u32, of_parse_phandle_with_args, ...).
// Every failure becomes an Error naming the file and the node path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sh::dts {

class FdtBlob;
class Error;

struct PhandleArgs {
	int node = -1;
	std::vector<std::uint32_t> args;
};

class DtView {
public:
	explicit DtView(const FdtBlob &blob);

	int root() const { return 0; }
	std::optional<int> find(std::string_view path) const;
	std::optional<int> child(int node, std::string_view name) const;
	// of_find_node_by_name(NULL, name): the first node, in DT order,
	// whose name without unit address is `name`.
	std::optional<int> find_by_name(std::string_view name) const;
	std::vector<int> children(int node) const;
	int parent(int node) const;
	std::string path(int node) const;
	std::string name(int node) const;		// with unit address
	std::string base_name(int node) const;	// without "@unit"

	bool has(int node, std::string_view prop) const;
	// of_device_is_available(): no status, or "okay"/"ok".
	bool available(int node) const;
	// status = "fail" or "fail-sss", which of_get_next_cpu_node() skips.
	bool failed(int node) const;

	std::optional<std::uint32_t> u32(int node, std::string_view prop) const;
	std::optional<std::int32_t> s32(int node, std::string_view prop) const;
	// Two-cell or one-cell integers (e.g. clock-frequency).
	std::optional<std::uint64_t> u32_or_u64(int node, std::string_view prop) const;
	std::optional<std::vector<std::uint32_t>> u32_array(int node, std::string_view prop) const;
	std::optional<std::vector<std::uint64_t>> u64_array(int node, std::string_view prop) const;
	std::optional<std::string> string(int node, std::string_view prop) const;
	std::vector<std::string> strings(int node, std::string_view prop) const;

	// of_parse_phandle(): the index-th phandle of a plain phandle list.
	std::vector<int> phandles(int node, std::string_view prop) const;
	// of_parse_phandle_with_args(): entries of <&target arg...>, with the
	// argument count read from the target's `cells_name` property.
	std::vector<PhandleArgs> phandles_with_args(int node, std::string_view prop,
						    std::string_view cells_name) const;
	// Resolves one phandle value; throws naming `node` and `prop` when
	// it points nowhere.
	int resolve(std::uint32_t phandle, int node, std::string_view prop) const;
	// The node with that phandle (0 and 0xffffffff: none).
	std::optional<int> find_phandle(std::uint32_t phandle) const;

	[[nodiscard]] Error error(int node, std::string_view what) const;
	const std::string &origin() const { return origin_; }

private:
	const void *fdt_;
	std::string origin_;
	// The blob indexed in one walk: libfdt's parent, path and phandle
	// lookups each scan the blob from its start.
	struct Node {
		int offset;
		int parent;
		std::string path;
	};
	std::vector<Node> nodes_;	// in DT order: offsets ascending
	std::vector<std::pair<std::uint32_t, int>> by_phandle_;	// sorted
	const Node *indexed(int node) const;
};

} // namespace sh::dts
