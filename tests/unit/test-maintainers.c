/* test-maintainers.c: MAINTAINERS parsing and get_maintainer.pl matching. */
#include <string.h>
#include <glib.h>
#include "error.h"
#include "maintainers.h"

/* A trimmed-down MAINTAINERS: preamble, then sections using each feature. */
static const char sample[] =
	"List of maintainers and how to submit kernel changes\n"
	"====================================================\n"
	"\n"
	"Descriptions of section entries and preferred order\n"
	"---------------------------------------------------\n"
	"\n"
	"\tM: *Mail* patch to: FullName <address@domain>\n"
	"\tF: *Files* and directories wildcard patterns.\n"
	"\t   F:\tdrivers/net/\tall files in and below drivers/net\n"
	"\n"
	"Maintainers List\n"
	"----------------\n"
	"\n"
	".. note:: When reading this list, please look for the most precise areas\n"
	"          first. When adding to this list, please keep the entries in\n"
	"          alphabetical order.\n"
	"\n"
	"3C59X NETWORK DRIVER\n"
	"M:\tSteffen Klassert <klassert@kernel.org>\n"
	"L:\tnetdev@vger.kernel.org\n"
	"S:\tOdd Fixes\n"
	"F:\tDocumentation/networking/device_drivers/ethernet/3com/vortex.rst\n"
	"F:\tdrivers/net/ethernet/3com/3c59x.c\n"
	"\n"
	"CRC LIBRARIES\n"
	"M:\tEric Biggers <ebiggers@kernel.org>\n"
	"S:\tMaintained\n"
	"F:\tlib/crc?.c\n"
	"F:\tinclude/linux/crc*.h\n"
	"\n"
	"NETWORKING DRIVERS\n"
	"M:\t\"David S. Miller\" <davem@davemloft.net>\n"
	"M:\tJakub Kicinski <KUBA@Kernel.org>\n"
	"R:\tnetdev-review@example.org\n"
	"L:\tnetdev@vger.kernel.org\n"
	"S:\tMaintained\n"
	"K:\tnetdev\n"
	"F:\tdrivers/net/\n"
	"F:\tinclude/linux/netdevice.h\n"
	"X:\tdrivers/net/wireless/\n"
	"X:\tdrivers/net/*/README\n"
	"\n"
	"NETWORKING DRIVERS (WIRELESS)\r\n"
	"M:\tKalle Valo <kvalo@kernel.org>\r\n"
	"R:   Johannes Berg <johannes@sipsolutions.net>\r\n"
	"L:\tlinux-wireless@vger.kernel.org\r\n"
	"S:\tMaintained\r\n"
	"F:\tdrivers/net/wireless\r\n"
	"F:Documentation/networking/mac80211*\r\n"
	"\r\n"
	"NETWORKING GLOB TOP LEVEL\n"
	"M:\tnet-top@example.org\n"
	"R:\t<Net.Reviewer@Example.ORG>\n"
	"S:\tMaintained\n"
	"F:\tdrivers/net/*\n"
	"F:\tinclude/linux/net*.h\n"
	"\n"
	"NVIDIA TEGRA ARCHITECTURE SUPPORT\n"
	"M:\tThierry Reding <thierry.reding@gmail.com>\n"
	"S:\tSupported\n"
	"N:\t[^a-z]tegra   # NVIDIA SoCs, not 'integrated'\n"
	"N:\tbroken(regex\n"
	"\n"
	"SUNXI (ALLWINNER)\n"
	"M:\tChen-Yu Tsai <wens@csie.org>\n"
	"S:\tMaintained\n"
	"N:\tsun [x4-9] i\n"
	"X:\tdrivers/[oops\n"
	"F:\tarch/arm/mach-sunxi/\n"
	"\n"
	"THE REST\n"
	"M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
	"L:\tlinux-kernel@vger.kernel.org\n"
	"S:\tBuried alive in reporters\n"
	"F:\t*\n"
	"F:\t*/\n";

/* What the tree would say; records every question asked. */
static gboolean tree_is_dir(const char *pattern, void *payload)
{
	static const char *const dirs[] = { "drivers/net", "drivers/net/wireless", "lib" };

	g_ptr_array_add(payload, g_strdup(pattern));
	for (guint i = 0; i < G_N_ELEMENTS(dirs); i++)
		if (!strcmp(pattern, dirs[i]))
			return TRUE;
	return FALSE;
}

static ccsift_maintainers *parse(const char *text, size_t len, ccsift_is_dir_fn is_dir,
				 void *payload)
{
	ccsift_maintainers *m = NULL;

	g_assert_cmpint(ccsift_maintainers_parse(&m, text, len, is_dir, payload), ==, CCSIFT_OK);
	g_assert_nonnull(m);
	return m;
}

static ccsift_maintainers *parse_sample(void)
{
	GPtrArray *asked = g_ptr_array_new_with_free_func(g_free);
	ccsift_maintainers *m = parse(sample, strlen(sample), tree_is_dir, asked);

	g_ptr_array_unref(asked);
	return m;
}

/* "R:email M:email ..." for what matches path, in order. */
static char *who(const ccsift_maintainers *m, const char *path)
{
	GPtrArray *out = g_ptr_array_new();
	GString *s = g_string_new(NULL);
	int n = ccsift_maintainers_match(m, path, out);

	g_assert_cmpint(n, ==, (int)out->len);
	for (guint i = 0; i < out->len; i++) {
		const ccsift_maintainer *p = out->pdata[i];

		g_string_append_printf(s, "%s%c:%s", i ? " " : "", p->role, p->email);
	}
	g_ptr_array_unref(out);
	return g_string_free(s, FALSE);
}

#define assert_who(m, path, expected) do {			\
	char *who_ = who((m), (path));				\
	g_assert_cmpstr(who_, ==, (expected));			\
	g_free(who_);						\
} while (0)

#define NETDEV "M:davem@davemloft.net M:kuba@kernel.org R:netdev-review@example.org"
#define REST "M:torvalds@linux-foundation.org"

static void test_preamble_and_sections(void)
{
	ccsift_maintainers *m = parse_sample();

	/* The preamble's indented "M:"/"F:" lines are not a section. */
	g_assert_cmpuint(ccsift_maintainers_count(m), ==, 8);
	assert_who(m, "Makefile", REST);
	ccsift_maintainers_free(m);
}

static void test_exact_file(void)
{
	ccsift_maintainers *m = parse_sample();

	assert_who(m, "drivers/net/ethernet/3com/3c59x.c",
		   "M:klassert@kernel.org " NETDEV " " REST);
	assert_who(m, "drivers/net/ethernet/3com/3c515.c", NETDEV " " REST);
	assert_who(m, "Documentation/networking/device_drivers/ethernet/3com/vortex.rst",
		   "M:klassert@kernel.org " REST);
	assert_who(m, "include/linux/netdevice.h",
		   NETDEV " M:net-top@example.org R:net.reviewer@example.org " REST);
	ccsift_maintainers_free(m);
}

static void test_directory_trailing_slash(void)
{
	ccsift_maintainers *m = parse_sample();

	assert_who(m, "drivers/net/phy/phy.c", NETDEV " " REST);
	assert_who(m, "drivers/net/ethernet/intel/e1000e/netdev.c", NETDEV " " REST);
	assert_who(m, "arch/arm/mach-sunxi/platsmp.c", "M:wens@csie.org " REST);
	/* "drivers/net/" is a prefix regex: it needs the slash. */
	assert_who(m, "drivers/netfilter/core.c", REST);
	ccsift_maintainers_free(m);
}

static void test_directory_from_is_dir(void)
{
	GPtrArray *asked = g_ptr_array_new_with_free_func(g_free);
	ccsift_maintainers *m = parse(sample, strlen(sample), tree_is_dir, asked);
	char *joined;

	/* Only plain names without a trailing slash are worth asking about. */
	g_ptr_array_add(asked, NULL);
	joined = g_strjoinv(",", (char **)asked->pdata);
	g_assert_cmpstr(joined, ==,
			"Documentation/networking/device_drivers/ethernet/3com/vortex.rst,"
			"drivers/net/ethernet/3com/3c59x.c,"
			"include/linux/netdevice.h,"
			"drivers/net/wireless,"
			"drivers/[oops");
	g_free(joined);

	assert_who(m, "drivers/net/wireless/ath/ath9k/main.c",
		   "M:kvalo@kernel.org R:johannes@sipsolutions.net " REST);
	assert_who(m, "drivers/net/wireless/Kconfig",
		   "M:kvalo@kernel.org R:johannes@sipsolutions.net " REST);
	ccsift_maintainers_free(m);
	g_ptr_array_unref(asked);
}

static void test_directory_without_is_dir(void)
{
	ccsift_maintainers *m = parse(sample, strlen(sample), NULL, NULL);

	/* "drivers/net/wireless" is then a file pattern: same depth only. */
	assert_who(m, "drivers/net/wireless/ath/ath9k/main.c", REST);
	assert_who(m, "drivers/net/wireless/Kconfig", REST);
	assert_who(m, "drivers/net/wireless",
		   NETDEV " M:kvalo@kernel.org R:johannes@sipsolutions.net "
		   "M:net-top@example.org R:net.reviewer@example.org " REST);
	ccsift_maintainers_free(m);
}

static void test_star_glob_depth(void)
{
	ccsift_maintainers *m = parse_sample();

	/* F: drivers/net/STAR takes drivers/net/a.c, not drivers/net/x/a.c. */
	assert_who(m, "drivers/net/Kconfig",
		   NETDEV " M:net-top@example.org R:net.reviewer@example.org " REST);
	assert_who(m, "drivers/net/phy/phy.c", NETDEV " " REST);
	/* ".*" may cross '/', the slash count then rejects the deeper path. */
	assert_who(m, "include/linux/netlink.h",
		   "M:net-top@example.org R:net.reviewer@example.org " REST);
	assert_who(m, "include/linux/netfilter/x_tables.h", REST);
	assert_who(m, "include/linux/crc32.h", "M:ebiggers@kernel.org " REST);
	assert_who(m, "Documentation/networking/mac80211-injection.rst",
		   "M:kvalo@kernel.org R:johannes@sipsolutions.net " REST);
	assert_who(m, "Documentation/networking/mac80211/x.rst", REST);
	/* "*" is top-level files only; "* /" everything below a directory. */
	assert_who(m, "README", REST);
	assert_who(m, "a/b/c/d/e/f.c", REST);
	ccsift_maintainers_free(m);
}

static void test_question_mark_and_dot(void)
{
	ccsift_maintainers *m = parse_sample();

	assert_who(m, "lib/crc8.c", "M:ebiggers@kernel.org " REST);
	assert_who(m, "lib/crc7.c", "M:ebiggers@kernel.org " REST);
	/* '?' is exactly one character... */
	assert_who(m, "lib/crc32.c", REST);
	assert_who(m, "lib/crc.c", REST);
	/* ...and '.' is literal. */
	assert_who(m, "lib/crc8xc", REST);
	ccsift_maintainers_free(m);
}

static void test_exclude(void)
{
	ccsift_maintainers *m = parse_sample();

	/* X: drivers/net/wireless/ takes the whole subtree out of NETWORKING. */
	assert_who(m, "drivers/net/wireless/ath/ath9k/main.c",
		   "M:kvalo@kernel.org R:johannes@sipsolutions.net " REST);
	/* X: drivers/net/STAR/README: exactly one level down. */
	assert_who(m, "drivers/net/phy/README", REST);
	assert_who(m, "drivers/net/phy/sub/README", NETDEV " " REST);
	/* An invalid X: regex is skipped, not fatal to its section. */
	assert_who(m, "arch/arm/mach-sunxi/pm.c", "M:wens@csie.org " REST);
	ccsift_maintainers_free(m);
}

static void test_n_regex(void)
{
	ccsift_maintainers *m = parse_sample();

	/* Extended syntax: "[^a-z]tegra   # comment", "sun [x4-9] i". */
	assert_who(m, "drivers/clk/tegra/clk.c", "M:thierry.reding@gmail.com " REST);
	assert_who(m, "arch/arm64/boot/dts/nvidia/tegra194.dtsi",
		   "M:thierry.reding@gmail.com " REST);
	assert_who(m, "drivers/gpu/integrated.c", REST);
	assert_who(m, "arch/arm/boot/dts/allwinner/sun8i-h3.dtsi", "M:wens@csie.org " REST);
	assert_who(m, "drivers/clk/sunxi-ng/ccu.c", "M:wens@csie.org " REST);
	assert_who(m, "net/sunrpc/clnt.c", REST);
	assert_who(m, "drivers/sun 8i.c", REST);
	/* K: is about content, never paths. */
	assert_who(m, "tools/netdev.c", REST);
	ccsift_maintainers_free(m);
}

static void test_names_roles_sections(void)
{
	ccsift_maintainers *m = parse_sample();
	GPtrArray *out = g_ptr_array_new();
	const ccsift_maintainer *p;

	g_ptr_array_add(out, NULL);	/* match appends, never clears */
	g_assert_cmpint(ccsift_maintainers_match(m, "drivers/net/Kconfig", out), ==, 6);
	g_assert_cmpuint(out->len, ==, 7);
	g_assert_null(out->pdata[0]);

	p = out->pdata[1];
	g_assert_cmpint(p->role, ==, 'M');
	g_assert_cmpstr(p->name, ==, "David S. Miller");
	g_assert_cmpstr(p->email, ==, "davem@davemloft.net");
	g_assert_cmpstr(p->section, ==, "NETWORKING DRIVERS");
	p = out->pdata[2];
	g_assert_cmpint(p->role, ==, 'M');
	g_assert_cmpstr(p->name, ==, "Jakub Kicinski");
	g_assert_cmpstr(p->email, ==, "kuba@kernel.org");
	p = out->pdata[3];
	g_assert_cmpint(p->role, ==, 'R');
	g_assert_cmpstr(p->name, ==, "");
	g_assert_cmpstr(p->email, ==, "netdev-review@example.org");
	p = out->pdata[5];
	g_assert_cmpint(p->role, ==, 'R');
	g_assert_cmpstr(p->name, ==, "");
	g_assert_cmpstr(p->email, ==, "net.reviewer@example.org");
	g_assert_cmpstr(p->section, ==, "NETWORKING GLOB TOP LEVEL");
	p = out->pdata[6];
	g_assert_cmpstr(p->name, ==, "Linus Torvalds");
	g_assert_cmpstr(p->section, ==, "THE REST");
	g_ptr_array_unref(out);
	ccsift_maintainers_free(m);
}

static void test_crlf_and_spacing(void)
{
	ccsift_maintainers *m = parse_sample();
	GPtrArray *out = g_ptr_array_new();
	const ccsift_maintainer *p;

	/* The CRLF section: no '\r' in title, names or patterns. */
	g_assert_cmpint(ccsift_maintainers_match(m, "drivers/net/wireless/iwlwifi/mvm/ops.c",
						 out), ==, 3);
	p = out->pdata[0];
	g_assert_cmpstr(p->section, ==, "NETWORKING DRIVERS (WIRELESS)");
	g_assert_cmpstr(p->name, ==, "Kalle Valo");
	g_assert_cmpstr(p->email, ==, "kvalo@kernel.org");
	p = out->pdata[1];
	g_assert_cmpint(p->role, ==, 'R');
	g_assert_cmpstr(p->name, ==, "Johannes Berg");
	g_assert_cmpstr(p->email, ==, "johannes@sipsolutions.net");
	g_ptr_array_unref(out);
	ccsift_maintainers_free(m);

	/* No blank, spaces, tabs and trailing blanks around values. */
	static const char text[] =
		"SPACING\n"
		"M:a@example.org\n"
		"R: \t Name  Here   <b@example.org>   \n"
		"F:tools/x/\n"
		"F:  \t tools/y.c \t \n";
	m = parse(text, strlen(text), NULL, NULL);
	assert_who(m, "tools/x/a/b.c", "M:a@example.org R:b@example.org");
	assert_who(m, "tools/y.c", "M:a@example.org R:b@example.org");
	assert_who(m, "tools/z.c", "");
	out = g_ptr_array_new();
	g_assert_cmpint(ccsift_maintainers_match(m, "tools/y.c", out), ==, 2);
	g_assert_cmpstr(((ccsift_maintainer *)out->pdata[1])->name, ==, "Name  Here");
	g_ptr_array_unref(out);
	ccsift_maintainers_free(m);
}

static void test_section_boundaries(void)
{
	/* As in get_maintainer.pl: blank and '#' lines are dropped, so only a
	 * new title line ends a section; tagged lines at the very top form a
	 * section without title. */
	static const char text[] =
		"M:\ttop@example.org\n"
		"F:\ttop/\n"
		"FIRST\n"
		"M:\tfirst@example.org\n"
		"F:\tfirst/\n"
		"\n"
		"# a comment\n"
		"F:\talso-first/\n"
		"SECOND\n"
		"M:\tsecond@example.org\n"
		"F:\talso-first/\n";
	ccsift_maintainers *m = parse(text, strlen(text), NULL, NULL);
	GPtrArray *out = g_ptr_array_new();

	g_assert_cmpuint(ccsift_maintainers_count(m), ==, 3);
	assert_who(m, "top/a.c", "M:top@example.org");
	assert_who(m, "also-first/a.c", "M:first@example.org M:second@example.org");
	g_assert_cmpint(ccsift_maintainers_match(m, "top/a.c", out), ==, 1);
	g_assert_cmpstr(((ccsift_maintainer *)out->pdata[0])->section, ==, "");
	g_ptr_array_unref(out);
	ccsift_maintainers_free(m);
}

static void test_empty_and_null(void)
{
	ccsift_maintainers *m = (ccsift_maintainers *)&m;
	GPtrArray *out = g_ptr_array_new();

	ccsift_error_clear();
	g_assert_cmpint(ccsift_maintainers_parse(&m, NULL, 10, NULL, NULL), ==, CCSIFT_EINVALID);
	g_assert_null(m);
	g_assert_cmpstr(ccsift_error_last(), !=, "no error");
	g_assert_cmpint(ccsift_maintainers_parse(NULL, "x", 1, NULL, NULL), ==, CCSIFT_EINVALID);

	m = parse("", 0, NULL, NULL);
	g_assert_cmpuint(ccsift_maintainers_count(m), ==, 0);
	g_assert_cmpint(ccsift_maintainers_match(m, "a/b.c", out), ==, 0);
	g_assert_cmpint(ccsift_maintainers_match(m, NULL, out), ==, CCSIFT_EINVALID);
	g_assert_cmpint(ccsift_maintainers_match(NULL, "a", out), ==, CCSIFT_EINVALID);
	g_assert_cmpuint(out->len, ==, 0);
	ccsift_maintainers_free(m);
	ccsift_maintainers_free(NULL);
	g_assert_cmpuint(ccsift_maintainers_count(NULL), ==, 0);

	/* Text without sections; len stops before the last section. */
	m = parse("just\nprose\n\n", 12, NULL, NULL);
	g_assert_cmpuint(ccsift_maintainers_count(m), ==, 0);
	ccsift_maintainers_free(m);
	m = parse("A\nM: a@x\nF: *\nB\nM: b@x\nF: *\n", 16, NULL, NULL);
	g_assert_cmpuint(ccsift_maintainers_count(m), ==, 1);
	assert_who(m, "f", "M:a@x");
	ccsift_maintainers_free(m);
	g_ptr_array_unref(out);
}

static void test_garbage_entries(void)
{
	/* Empty values, addresses without '@', bad regexes, non-UTF-8 bytes
	 * and a NUL byte: skipped or matched bytewise, never fatal. */
	static const char text[] =
		"\x01\xff:\n"
		"::\n"
		"M:\n"
		"F:\n"
		"N:\n"
		"X:\n"
		"M: <>\n"
		"M: @\n"
		"R: no-at-sign\n"
		"M: Name <not-an-address>\n"
		"N: ((((\n"
		"F: [\n"
		"\xfe\xfe title\n"
		"M: raw@example.org\n"
		"F:\t\x80\x81/\n"
		"F:\t\x90(\x91)+/\n"
		"N:\t\xff{2}\n"
		"NUL\n"
		"M: nul@example.org\n"
		"F: nul\0/\n";
	ccsift_maintainers *m = parse(text, sizeof(text) - 1, NULL, NULL);

	g_assert_cmpuint(ccsift_maintainers_count(m), ==, 3);
	assert_who(m, "\x80\x81/a.c", "M:raw@example.org");
	assert_who(m, "\x90\x91\x91/a.c", "M:raw@example.org");
	assert_who(m, "a/\xff\xff.c", "M:raw@example.org");
	assert_who(m, "a/\xff.c", "");
	assert_who(m, "nul", "M:nul@example.org");
	assert_who(m, "[", "");
	assert_who(m, "", "");
	ccsift_maintainers_free(m);
}

static void test_random_bytes(void)
{
	static const char alphabet[] = "FXNMRK:\t \n\r/*?.[(\\+@<>aZ\x80\xff";
	GRand *rand = g_rand_new_with_seed(4242);
	size_t len = 256 * 1024;
	char *text = g_malloc(len);
	GPtrArray *out = g_ptr_array_new();
	ccsift_maintainers *m;
	guint total = 0;

	for (size_t i = 0; i < len; i++)
		text[i] = g_rand_int_range(rand, 0, 4) ?
			alphabet[g_rand_int_range(rand, 0, sizeof(alphabet) - 1)] :
			(char)g_rand_int_range(rand, 0, 256);
	m = parse(text, len, NULL, NULL);
	for (int i = 0; i < 2000; i++) {
		char path[32];
		int n;

		for (guint j = 0; j < sizeof(path) - 1; j++)
			path[j] = alphabet[g_rand_int_range(rand, 0, sizeof(alphabet) - 1)];
		path[g_rand_int_range(rand, 1, sizeof(path))] = '\0';
		n = ccsift_maintainers_match(m, path, out);
		g_assert_cmpint(n, >=, 0);
		total += n;
	}
	g_assert_cmpuint(out->len, ==, total);
	ccsift_maintainers_free(m);
	g_ptr_array_unref(out);
	g_free(text);
	g_rand_free(rand);
}

static void test_long_lines(void)
{
	GString *text = g_string_new(NULL);
	GString *path = g_string_new("deep/");
	ccsift_maintainers *m;

	/* A 1 MB title, a 256 KB pattern and a 256 KB path. */
	for (int i = 0; i < 1024 * 1024; i++)
		g_string_append_c(text, 'T');
	g_string_append(text, "\nM: long@example.org\nF: deep/");
	for (int i = 0; i < 256 * 1024; i++) {
		g_string_append_c(text, i % 1024 ? 'a' : '*');
		g_string_append_c(path, 'a');
	}
	g_string_append(text, "\n");
	m = parse(text->str, text->len, NULL, NULL);
	g_assert_cmpuint(ccsift_maintainers_count(m), ==, 1);
	assert_who(m, path->str, "M:long@example.org");
	/* Fewer bytes than the pattern's literals: backtracking must give up. */
	g_string_truncate(path, 5 + 1000);
	assert_who(m, path->str, "");
	ccsift_maintainers_free(m);
	g_string_free(path, TRUE);
	g_string_free(text, TRUE);
}

/* A kernel-sized file: ~3000 sections, ~800 KB. */
static GString *big_maintainers(void)
{
	GString *s = g_string_new("List of maintainers\n===================\n\n"
				  "\tM: *Mail* patch to: FullName <address@domain>\n\n");

	for (int i = 0; i < 3000; i++) {
		g_string_append_printf(s,
			"SUBSYSTEM %04d DRIVER\n"
			"M:\tMaintainer Number%d <maint%d@example.org>\n"
			"M:\tSecond Person <second%d@example.org>\n"
			"R:\treviewer%d@example.org\n"
			"L:\tlist%d@vger.kernel.org\n"
			"S:\tMaintained\n"
			"W:\thttps://example.org/subsystem/%d\n"
			"T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/sub%d.git\n"
			"F:\tDocumentation/devicetree/bindings/sub/vendor,sub%d.yaml\n"
			"F:\tdrivers/sub%d/\n"
			"F:\tdrivers/misc/sub%d-*.c\n"
			"F:\tinclude/linux/sub%d.h\n"
			"F:\tinclude/uapi/linux/sub%d/\n"
			"F:\ttools/testing/selftests/sub%d/\n",
			i, i, i, i, i, i, i, i, i, i, i, i, i, i);
		if (i % 7 == 0)
			g_string_append_printf(s, "X:\tdrivers/sub%d/legacy/\n", i);
		if (i % 10 == 0)
			g_string_append_printf(s, "N:\t\\bsub%d\\b\n", i);
		if (i % 5 == 0)
			g_string_append_printf(s, "K:\t\\bsub%d_probe\\b\n", i);
		g_string_append_c(s, '\n');
	}
	return s;
}

static void test_kernel_sized(void)
{
	GString *text = big_maintainers();
	gint64 t0 = g_get_monotonic_time(), t1, t2;
	ccsift_maintainers *m = parse(text->str, text->len, NULL, NULL);
	GPtrArray *out = g_ptr_array_new();
	int total = 0;

	t1 = g_get_monotonic_time();
	g_assert_cmpuint(text->len, >, 700 * 1024);
	g_assert_cmpuint(ccsift_maintainers_count(m), ==, 3000);
	for (int i = 0; i < 300; i++) {
		char *path = g_strdup_printf("drivers/sub%d/core/main.c", i * 10);

		total += ccsift_maintainers_match(m, path, out);
		g_free(path);
	}
	t2 = g_get_monotonic_time();
	g_assert_cmpint(total, ==, 900);
	assert_who(m, "drivers/sub70/legacy/old.c", "");
	assert_who(m, "drivers/sub70/new.c",
		   "M:maint70@example.org M:second70@example.org R:reviewer70@example.org");
	assert_who(m, "drivers/misc/sub1234-i2c.c",
		   "M:maint1234@example.org M:second1234@example.org R:reviewer1234@example.org");
	assert_who(m, "drivers/misc/sub1234/i2c.c", "");
	/* N: \bsub2990\b, anywhere in the path. */
	assert_who(m, "arch/x86/sub2990.c",
		   "M:maint2990@example.org M:second2990@example.org R:reviewer2990@example.org");
	g_test_message("parse %.1f ms, 300 matches %.1f ms",
		       (t1 - t0) / 1000.0, (t2 - t1) / 1000.0);
	/* Generous bounds (sanitizers, loaded machines): catch quadratic work. */
	g_assert_cmpint(t1 - t0, <, 3 * G_USEC_PER_SEC);
	g_assert_cmpint(t2 - t1, <, 3 * G_USEC_PER_SEC);
	g_ptr_array_unref(out);
	ccsift_maintainers_free(m);
	g_string_free(text, TRUE);
}

/* 300 sections with a catastrophically backtracking N: (issue 11, item 3):
 * about 60 ms per path and regex before, so these 20 paths took minutes. No
 * clock here: the harness's timeout is the guard; the answers must stay right. */
static void test_hostile_regex(void)
{
	GString *text = g_string_new("");
	ccsift_maintainers *m;
	GPtrArray *out = g_ptr_array_new();
	g_autofree char *hostile = g_strnfill(40, 'a');
	g_autofree char *path = g_strconcat(hostile, "!", NULL);

	for (int i = 0; i < 300; i++)
		g_string_append_printf(text, "HOSTILE %d\nM: Evil %d <evil%d@example.org>\n"
				       "N: ^(a|aa)+$\n\n", i, i, i);
	g_string_append(text, "FOO\nM: Dave <dave@example.org>\nF: drivers/net/foo.c\nN: ^(a|aa)+$\n");
	m = parse(text->str, text->len, NULL, NULL);
	for (int i = 0; i < 20; i++) {
		g_ptr_array_set_size(out, 0);
		g_assert_cmpint(ccsift_maintainers_match(m, path, out), ==, 0);
	}
	/* A file the hostile sections do not name still finds its maintainer. */
	g_ptr_array_set_size(out, 0);
	g_assert_cmpint(ccsift_maintainers_match(m, "drivers/net/foo.c", out), ==, 1);
	g_assert_cmpstr(((ccsift_maintainer *)out->pdata[0])->email, ==, "dave@example.org");
	/* And the regex still matches what it can match cheaply. */
	g_ptr_array_set_size(out, 0);
	g_assert_cmpint(ccsift_maintainers_match(m, "aaaa", out), ==, 301);
	g_ptr_array_unref(out);
	ccsift_maintainers_free(m);
	g_string_free(text, TRUE);
}

/* Every entry of every section, one path after another: what a parse gives. */
static char *all_who(const ccsift_maintainers *m, const char *const *paths)
{
	GString *s = g_string_new(NULL);

	for (const char *const *p = paths; *p; p++) {
		char *w = who(m, *p);

		g_string_append_printf(s, "%s: %s\n", *p, w);
		g_free(w);
	}
	return g_string_free(s, FALSE);
}

static const char *const probe_paths[] = {
	"drivers/net/foo.c", "drivers/net/wireless/iwlwifi/mvm/ops.c", "drivers/net/Kconfig",
	"lib/string.c", "lib", "drivers/netfoo.c", "include/linux/netdevice.h", "README", "a/b.c",
	"tools/y.c", "Documentation/networking/x.rst", NULL,
};

/* Parsing the resolved text with no is_dir gives what the text gives with
 * is_dir, and asks nothing. */
static void test_resolve(void)
{
	GPtrArray *asked = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *again = g_ptr_array_new_with_free_func(g_free);
	ccsift_maintainers *m = parse(sample, strlen(sample), tree_is_dir, asked);
	char *resolved = ccsift_maintainers_resolve(sample, strlen(sample), tree_is_dir, again);
	ccsift_maintainers *r = parse(resolved, strlen(resolved), NULL, NULL);
	char *want = all_who(m, probe_paths), *got = all_who(r, probe_paths);

	g_assert_cmpstr(got, ==, want);
	/* The same questions as the parse, in the same order. */
	g_assert_cmpuint(again->len, ==, asked->len);
	for (guint i = 0; i < asked->len; i++)
		g_assert_cmpstr(again->pdata[i], ==, asked->pdata[i]);
	g_assert_cmpuint(ccsift_maintainers_count(r), ==, ccsift_maintainers_count(m));
	g_free(want);
	g_free(got);
	g_free(resolved);
	ccsift_maintainers_free(m);
	ccsift_maintainers_free(r);
	g_ptr_array_unref(asked);
	g_ptr_array_unref(again);
}

static gboolean want_email(const ccsift_maintainer *e, void *payload)
{
	return strcmp(e->email, payload) == 0;
}

/* ccsift_maintainers_first is the first entry of ccsift_maintainers_match's
 * list that want says TRUE of, for every person and path; so is the
 * first of the person's selection. */
static void test_first(void)
{
	ccsift_maintainers *m = parse_sample();
	GPtrArray *out = g_ptr_array_new();
	GHashTable *emails = g_hash_table_new(g_str_hash, g_str_equal);
	unsigned found = 0;

	for (const char *const *p = probe_paths; *p; p++) {
		g_ptr_array_set_size(out, 0);
		ccsift_maintainers_match(m, *p, out);
		for (guint i = 0; i < out->len; i++)
			g_hash_table_add(emails, (gpointer)((ccsift_maintainer *)out->pdata[i])->email);
	}
	g_hash_table_add(emails, "nobody@example.org");
	for (const char *const *p = probe_paths; *p; p++) {
		GHashTableIter it;
		gpointer email;

		g_ptr_array_set_size(out, 0);
		ccsift_maintainers_match(m, *p, out);
		g_hash_table_iter_init(&it, emails);
		while (g_hash_table_iter_next(&it, &email, NULL)) {
			const ccsift_maintainer *want = NULL;
			ccsift_maintainers_selection *sel;

			for (guint i = 0; i < out->len && !want; i++)
				if (want_email(out->pdata[i], email))
					want = out->pdata[i];
			g_assert_true(ccsift_maintainers_first(m, *p, want_email, email) == want);
			/* the same from the sections selected once for the person */
			sel = ccsift_maintainers_select(m, want_email, email);
			g_assert_true(ccsift_maintainers_selection_first(sel, *p) == want);
			ccsift_maintainers_selection_free(sel);
			found += want != NULL;
		}
	}
	g_assert_cmpuint(found, >, 0);
	g_hash_table_unref(emails);
	g_ptr_array_unref(out);
	ccsift_maintainers_free(m);
}

struct split_test {
	GString *all;           /* every section's text */
	GHashTable *naming;     /* email -> GString of the sections naming it */
	unsigned sections;
};

static void on_section(guint no, const char *text, size_t len, const char *const *emails, void *payload)
{
	struct split_test *t = payload;

	g_assert_cmpuint(no, ==, t->sections);
	t->sections++;
	g_string_append_len(t->all, text, len);
	for (const char *const *e = emails; *e; e++) {
		GString *mine = g_hash_table_lookup(t->naming, *e);
		gboolean before = FALSE;

		if (!mine)
			g_hash_table_insert(t->naming, g_strdup(*e), (mine = g_string_new(NULL)));

		/* once per section, however often it names them */
		for (const char *const *f = emails; f < e; f++)
			before |= strcmp(*f, *e) == 0;
		if (!before)
			g_string_append_len(mine, text, len);
	}
}

static void free_gstring(gpointer s)
{
	g_string_free(s, TRUE);
}

/* The sections' texts parse to the file's sections; those naming someone,
 * in order, give what the whole file gives about them. */
static void check_split(const char *text)
{
	struct split_test t = { g_string_new(NULL),
				g_hash_table_new_full(g_str_hash, g_str_equal, g_free, free_gstring), 0 };
	ccsift_maintainers *m = parse(text, strlen(text), NULL, NULL), *all;
	GHashTableIter it;
	gpointer email, mine;
	char *want, *got;

	ccsift_maintainers_split(text, strlen(text), on_section, &t);
	all = parse(t.all->str, t.all->len, NULL, NULL);
	g_assert_cmpuint(t.sections, ==, ccsift_maintainers_count(m));
	g_assert_cmpuint(ccsift_maintainers_count(all), ==, ccsift_maintainers_count(m));
	want = all_who(m, probe_paths);
	got = all_who(all, probe_paths);
	g_assert_cmpstr(got, ==, want);
	g_free(want);
	g_free(got);
	g_hash_table_iter_init(&it, t.naming);
	while (g_hash_table_iter_next(&it, &email, &mine)) {
		ccsift_maintainers *sub = parse(((GString *)mine)->str, ((GString *)mine)->len, NULL, NULL);

		g_assert_true(ccsift_maintainers_lists(sub, email));
		for (const char *const *p = probe_paths; *p; p++) {
			const ccsift_maintainer *a = ccsift_maintainers_first(m, *p, want_email, email);
			const ccsift_maintainer *b = ccsift_maintainers_first(sub, *p, want_email, email);

			g_assert_true(!a == !b);
			if (a) {
				g_assert_cmpstr(a->section, ==, b->section);
				g_assert_cmpint(a->role, ==, b->role);
				g_assert_cmpstr(a->name, ==, b->name);
			}
		}
		ccsift_maintainers_free(sub);
	}
	ccsift_maintainers_free(m);
	ccsift_maintainers_free(all);
	g_hash_table_unref(t.naming);
	g_string_free(t.all, TRUE);
}

static void test_split(void)
{
	GString *big = big_maintainers();

	check_split(sample);
	check_split("M: First <first@example.org>\nF: a/\n\nTITLE\n# comment\nM: x@example.org\n\nF: b/\n"
		    "M: X <x@example.org>\nOTHER\nR: \"Y Z\" <Y@Example.org>\nF: *\n");
	check_split(big->str);
	g_string_free(big, TRUE);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/maintainers/preamble-and-sections", test_preamble_and_sections);
	g_test_add_func("/maintainers/exact-file", test_exact_file);
	g_test_add_func("/maintainers/directory-trailing-slash", test_directory_trailing_slash);
	g_test_add_func("/maintainers/directory-from-is-dir", test_directory_from_is_dir);
	g_test_add_func("/maintainers/directory-without-is-dir", test_directory_without_is_dir);
	g_test_add_func("/maintainers/star-glob-depth", test_star_glob_depth);
	g_test_add_func("/maintainers/question-mark-and-dot", test_question_mark_and_dot);
	g_test_add_func("/maintainers/exclude", test_exclude);
	g_test_add_func("/maintainers/n-regex", test_n_regex);
	g_test_add_func("/maintainers/names-roles-sections", test_names_roles_sections);
	g_test_add_func("/maintainers/crlf-and-spacing", test_crlf_and_spacing);
	g_test_add_func("/maintainers/section-boundaries", test_section_boundaries);
	g_test_add_func("/maintainers/empty-and-null", test_empty_and_null);
	g_test_add_func("/maintainers/garbage-entries", test_garbage_entries);
	g_test_add_func("/maintainers/random-bytes", test_random_bytes);
	g_test_add_func("/maintainers/long-lines", test_long_lines);
	g_test_add_func("/maintainers/kernel-sized", test_kernel_sized);
	g_test_add_func("/maintainers/hostile-regex", test_hostile_regex);
	g_test_add_func("/maintainers/resolve", test_resolve);
	g_test_add_func("/maintainers/first", test_first);
	g_test_add_func("/maintainers/split", test_split);
	return g_test_run();
}
