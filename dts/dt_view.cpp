// SPDX-License-Identifier: GPL-2.0
#include "dts/dt_view.h"

#include "dts/blob.h"
#include "dts/platform.h"

#include <fmt/format.h>
#include <libfdt.h>

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

DtView::DtView(const FdtBlob &blob) : fdt_(blob.data()), origin_(blob.origin()) {}

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
	for (int node = fdt_next_node(fdt_, 0, nullptr); node >= 0;
	     node = fdt_next_node(fdt_, node, nullptr))
		if (base_name(node) == name)
			return node;
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
	int off = fdt_parent_offset(fdt_, node);
	return off < 0 ? 0 : off;
}

std::string DtView::path(int node) const
{
	char buf[1024];
	if (fdt_get_path(fdt_, node, buf, sizeof(buf)) != 0)
		return fmt::format("<node at offset {}>", node);
	return buf;
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

int DtView::resolve(std::uint32_t phandle, int node, std::string_view prop) const
{
	int target = -FDT_ERR_NOTFOUND;
	if (phandle != 0 && phandle != 0xffffffffu)
		target = fdt_node_offset_by_phandle(fdt_, phandle);
	if (target < 0)
		throw error(node, fmt::format("{} refers to phandle {:#x}, which no node has",
					      prop, phandle));
	return target;
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
