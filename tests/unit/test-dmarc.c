/* Undoing mailing lists' DMARC rewrites of From:, as lists write them. */
#include "dmarc.h"

static void check_email(const char *rewritten, const char *real)
{
	g_autofree char *got = ccsift_dmarc_unwrap_email(rewritten);

	g_assert_cmpstr(got, ==, real);
}

static void check_name(const char *rewritten, const char *real)
{
	g_autofree char *got = ccsift_dmarc_unwrap_name(rewritten);

	g_assert_cmpstr(got, ==, real);
}

static void test_groups_io_address(void)
{
	check_email("dougflick=microsoft.com@groups.io", "dougflick@microsoft.com");
	check_email("brijesh.singh=amd.com@groups.io", "brijesh.singh@amd.com");
	check_email("vit9696=protonmail.com@Groups.Io", "vit9696@protonmail.com");
	check_email("a=b=example.org@edk2.groups.io", "a=b@example.org");
}

static void test_not_a_rewrite(void)
{
	/* the list itself, or a host that is not groups.io */
	check_email("devel@edk2.groups.io", NULL);
	check_email("x=example.com@lists.example.org", NULL);
	/* no local part, a domain without a dot, an empty domain */
	check_email("=example.com@groups.io", NULL);
	check_email("joe=localhost@groups.io", NULL);
	check_email("joe=@groups.io", NULL);
	check_email("joe=example.com.@groups.io", NULL);
	check_email("no-at-sign", NULL);
	check_email(NULL, NULL);
}

static void test_via_name(void)
{
	check_name("Wei Gao via ltp", "Wei Gao");
	check_name("Doug Flick via groups.io", "Doug Flick");
	check_name("Jane Via via U-Boot", "Jane Via");
	/* a name that merely contains the word */
	check_name("Wei Gao", NULL);
	check_name("via ltp", NULL);
	check_name("Wei Gao via the list", NULL);
	check_name("Wei Gao via ", NULL);
	check_name(NULL, NULL);
}

static void test_same_name(void)
{
	g_assert_true(ccsift_dmarc_same_name("Wei Gao", "wei  gao"));
	g_assert_true(ccsift_dmarc_same_name("wenyi,xie", "Wenyi Xie"));
	g_assert_false(ccsift_dmarc_same_name("Wei Gao", "Wei Gaos"));
	g_assert_false(ccsift_dmarc_same_name("", ""));
	g_assert_false(ccsift_dmarc_same_name(NULL, "Wei Gao"));
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/dmarc/groups-io-address", test_groups_io_address);
	g_test_add_func("/dmarc/not-a-rewrite", test_not_a_rewrite);
	g_test_add_func("/dmarc/via-name", test_via_name);
	g_test_add_func("/dmarc/same-name", test_same_name);
	return g_test_run();
}
