// SPDX-License-Identifier: GPL-2.0
#include "harness/cli/cli.h"

int main(int argc, char **argv)
{
	return sh::cli::main(argc, argv);
}
