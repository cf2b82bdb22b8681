// fmt's implementation, compiled once for the whole project.
//
// Debian ships fmt's headers and a shared libfmt, but no static one, and neither the shim nor
// the tool may need a library beyond glibc. Header-only fmt (FMT_HEADER_ONLY) met that by
// compiling fmt's implementation into every file that formats: some 5 s of CPU each at -O2,
// most of a build's time. Here it is compiled once, from the same headers: format-inl.h holds
// the definitions, and the templates fmt's headers declare as instantiated elsewhere are
// instantiated here, as fmt's own src/format.cc does.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                                 locale_ref);

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);

}  // namespace detail
FMT_END_NAMESPACE
