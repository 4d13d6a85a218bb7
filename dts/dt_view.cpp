// SPDX-License-Identifier: GPL-2.0
#include "dts/dt_view.h"

#include "dts/blob.h"
#include "dts/platform.h"

#include <fmt/format.h>
#include <libfdt.h>

#include <algorithm>

namespace sh::dts {

namespace {

struct RawProp {
	const char *data = nullptr;
	int len = 0;
};

std::optional<RawProp> raw(const void *fdt, int node, std::string_view prop)
{
	int len = 0;
	const void *data = fdt_getprop_namelen(fdt, node, prop.data(),
					       static_cast<int>(prop.size()), &len);
	if (!data)
		return std::nullopt;
	return RawProp{static_cast<const char *>(data), len};
}

std::uint32_t cell(const char *data, std::size_t index)
{
	return fdt32_ld(reinterpret_cast<const fdt32_t *>(data) + index);
}

} // namespace

DtView::DtView(const FdtBlob &blob) : fdt_(blob.data()), origin_(blob.origin())
{
	std::vector<int> ancestors;	// by depth
	int depth = 0;
	for (int node = 0; node >= 0; node = fdt_next_node(fdt_, node, &depth)) {
		if (depth < 0)
			break;
		ancestors.resize(static_cast<std::size_t>(depth) + 1);
		ancestors[static_cast<std::size_t>(depth)] = static_cast<int>(nodes_.size());
		const char *n = fdt_get_name(fdt_, node, nullptr);
		if (depth == 0) {
			nodes_.push_back({node, 0, "/"});
		} else {
			const auto &up = nodes_[static_cast<std::size_t>(ancestors[static_cast<std::size_t>(depth) - 1])];
			nodes_.push_back({node, up.offset, (up.path == "/" ? "" : up.path) + "/" + (n ? n : "")});
		}
		if (const auto ph = fdt_get_phandle(fdt_, node); ph != 0 && ph != 0xffffffffu)
			by_phandle_.emplace_back(ph, node);
	}
	// the first node of a phandle wins, as fdt_node_offset_by_phandle()
	std::stable_sort(by_phandle_.begin(), by_phandle_.end(),
			 [](const auto &a, const auto &b) { return a.first < b.first; });
}

const DtView::Node *DtView::indexed(int node) const
{
	const auto it = std::lower_bound(nodes_.begin(), nodes_.end(), node,
					 [](const Node &n, int offset) { return n.offset < offset; });
	return it != nodes_.end() && it->offset == node ? &*it : nullptr;
}

Error DtView::error(int node, std::string_view what) const
{
	return Error(fmt::format("{}: {}: {}", origin_, path(node), what));
}

std::optional<int> DtView::find(std::string_view path) const
{
	int off = fdt_path_offset_namelen(fdt_, path.data(), static_cast<int>(path.size()));
	if (off < 0)
		return std::nullopt;
	return off;
}

std::optional<int> DtView::child(int node, std::string_view name) const
{
	int off = fdt_subnode_offset_namelen(fdt_, node, name.data(), static_cast<int>(name.size()));
	if (off < 0)
		return std::nullopt;
	return off;
}

std::optional<int> DtView::find_by_name(std::string_view name) const
{
	for (std::size_t i = 1; i < nodes_.size(); i++)
		if (base_name(nodes_[i].offset) == name)
			return nodes_[i].offset;
	return std::nullopt;
}

std::vector<int> DtView::children(int node) const
{
	std::vector<int> out;
	int child;
	fdt_for_each_subnode(child, fdt_, node)
		out.push_back(child);
	return out;
}

int DtView::parent(int node) const
{
	const auto *n = indexed(node);
	return n ? n->parent : 0;
}

std::string DtView::path(int node) const
{
	const auto *n = indexed(node);
	return n ? n->path : fmt::format("<node at offset {}>", node);
}

std::string DtView::name(int node) const
{
	const char *n = fdt_get_name(fdt_, node, nullptr);
	return n ? n : "";
}

std::string DtView::base_name(int node) const
{
	auto n = name(node);
	return n.substr(0, n.find('@'));
}

bool DtView::has(int node, std::string_view prop) const
{
	return raw(fdt_, node, prop).has_value();
}

bool DtView::available(int node) const
{
	auto status = string(node, "status");
	return !status || *status == "okay" || *status == "ok";
}

bool DtView::failed(int node) const
{
	auto status = string(node, "status");
	return status && status->starts_with("fail");
}

std::optional<std::uint32_t> DtView::u32(int node, std::string_view prop) const
{
	auto p = raw(fdt_, node, prop);
	if (!p)
		return std::nullopt;
	if (p->len != 4)
		throw error(node, fmt::format("{} should be one 32-bit cell, it is {} bytes", prop, p->len));
	return cell(p->data, 0);
}

std::optional<std::int32_t> DtView::s32(int node, std::string_view prop) const
{
	auto v = u32(node, prop);
	if (!v)
		return std::nullopt;
	return static_cast<std::int32_t>(*v);
}

std::optional<std::uint64_t> DtView::u32_or_u64(int node, std::string_view prop) const
{
	auto p = raw(fdt_, node, prop);
	if (!p)
		return std::nullopt;
	if (p->len == 4)
		return cell(p->data, 0);
	if (p->len == 8)
		return (std::uint64_t{cell(p->data, 0)} << 32) | cell(p->data, 1);
	throw error(node, fmt::format("{} should be one or two cells, it is {} bytes", prop, p->len));
}

std::optional<std::vector<std::uint32_t>> DtView::u32_array(int node, std::string_view prop) const
{
	auto p = raw(fdt_, node, prop);
	if (!p)
		return std::nullopt;
	if (p->len % 4 != 0)
		throw error(node, fmt::format("{} is {} bytes, not a list of 32-bit cells", prop, p->len));
	std::vector<std::uint32_t> out;
	for (int i = 0; i < p->len / 4; i++)
		out.push_back(cell(p->data, i));
	return out;
}

std::optional<std::vector<std::uint64_t>> DtView::u64_array(int node, std::string_view prop) const
{
	auto p = raw(fdt_, node, prop);
	if (!p)
		return std::nullopt;
	if (p->len == 0 || p->len % 8 != 0)
		throw error(node, fmt::format("{} is {} bytes, not a list of 64-bit values "
					      "(write it as /bits/ 64 <...>)", prop, p->len));
	std::vector<std::uint64_t> out;
	for (int i = 0; i < p->len / 8; i++)
		out.push_back((std::uint64_t{cell(p->data, 2 * i)} << 32) | cell(p->data, 2 * i + 1));
	return out;
}

std::optional<std::string> DtView::string(int node, std::string_view prop) const
{
	auto p = raw(fdt_, node, prop);
	if (!p)
		return std::nullopt;
	if (p->len == 0 || p->data[p->len - 1] != '\0')
		throw error(node, fmt::format("{} is not a string", prop));
	return std::string(p->data);
}

std::vector<std::string> DtView::strings(int node, std::string_view prop) const
{
	std::vector<std::string> out;
	auto p = raw(fdt_, node, prop);
	if (!p)
		return out;
	if (p->len == 0 || p->data[p->len - 1] != '\0')
		throw error(node, fmt::format("{} is not a string list", prop));
	for (int pos = 0; pos < p->len;) {
		std::string s(p->data + pos);
		pos += static_cast<int>(s.size()) + 1;
		out.push_back(std::move(s));
	}
	return out;
}

std::optional<int> DtView::find_phandle(std::uint32_t phandle) const
{
	if (phandle == 0 || phandle == 0xffffffffu)
		return std::nullopt;
	const auto it = std::lower_bound(by_phandle_.begin(), by_phandle_.end(), phandle,
					 [](const auto &entry, std::uint32_t ph) { return entry.first < ph; });
	if (it == by_phandle_.end() || it->first != phandle)
		return std::nullopt;
	return it->second;
}

int DtView::resolve(std::uint32_t phandle, int node, std::string_view prop) const
{
	const auto target = find_phandle(phandle);
	if (!target)
		throw error(node, fmt::format("{} refers to phandle {:#x}, which no node has",
					      prop, phandle));
	return *target;
}

std::vector<int> DtView::phandles(int node, std::string_view prop) const
{
	std::vector<int> out;
	auto cells = u32_array(node, prop);
	if (!cells)
		return out;
	for (auto ph : *cells)
		out.push_back(resolve(ph, node, prop));
	return out;
}

std::vector<PhandleArgs> DtView::phandles_with_args(int node, std::string_view prop,
						    std::string_view cells_name) const
{
	std::vector<PhandleArgs> out;
	auto cells = u32_array(node, prop);
	if (!cells)
		return out;
	for (std::size_t i = 0; i < cells->size();) {
		// of_phandle_iterator_next(): phandle 0 is an empty entry
		// without arguments, skipped rather than an error.
		if ((*cells)[i] == 0) {
			i++;
			continue;
		}
		PhandleArgs entry;
		// where the previous entry's node takes fewer argument cells
		// than the entry gives, the next "phandle" is one of its
		// arguments: say so rather than only that no node has it
		if (!out.empty() && !find_phandle((*cells)[i])) {
			const auto &previous = out.back();
			throw error(node, fmt::format("{}: {:#x} (cell {} of {}) is no node's phandle; the entry before "
						      "it took {} argument cell{} ({} of {}): does that count match the "
						      "entries?",
						      prop, (*cells)[i], i + 1, cells->size(), previous.args.size(),
						      previous.args.size() == 1 ? "" : "s", cells_name,
						      path(previous.node)));
		}
		entry.node = resolve((*cells)[i++], node, prop);
		auto count = u32(entry.node, cells_name);
		if (!count)
			throw error(node, fmt::format("{} refers to {}, which has no {}", prop,
						      path(entry.node), cells_name));
		if (i + *count > cells->size())
			throw error(node, fmt::format("{} is cut short: {} needs {} argument cells",
						      prop, path(entry.node), *count));
		entry.args.assign(cells->begin() + static_cast<std::ptrdiff_t>(i),
				  cells->begin() + static_cast<std::ptrdiff_t>(i + *count));
		i += *count;
		out.push_back(std::move(entry));
	}
	return out;
}

} // namespace sh::dts
