#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The public headers in users' builds (issue 18, item 5): header_user.c
# compiled by gcc and clang as C99/C11/C17 and their gnu variants, and by
# g++ and clang++ as C++11/17/20, each with -Wall -Wextra -Wpedantic
# -Werror.  A compiler that is not installed fails the test: they all come
# from scripts/deps.txt.
#
#   header-matrix.sh INCLUDE_DIR
set -u
inc=$1
src=$(dirname "$0")/header_user.c
fails=0
n=0
flags="-Wall -Wextra -Wpedantic -Werror -O2 -c -o /dev/null"
try() {
	n=$((n + 1))
	# shellcheck disable=SC2086
	if out=$("$@" 2>&1); then echo "ok: $*"; else
		echo "FAIL: $*"
		echo "$out" | sed 's/^/#   /' | head -20
		fails=$((fails + 1))
	fi
}
for cc in gcc clang; do
	command -v $cc >/dev/null || { echo "FAIL: $cc is not installed (scripts/install-deps)"; exit 1; }
	for std in c99 c11 c17 gnu99 gnu11 gnu17; do
		# shellcheck disable=SC2086
		try $cc -std=$std $flags -I"$inc" -x c "$src"
	done
done
for cxx in g++ clang++; do
	command -v $cxx >/dev/null || { echo "FAIL: $cxx is not installed (scripts/install-deps)"; exit 1; }
	for std in c++11 c++17 c++20 gnu++17; do
		# shellcheck disable=SC2086
		try $cxx -std=$std $flags -I"$inc" -x c++ "$src"
	done
done
[ $fails = 0 ] || { echo "$fails of $n builds failed"; exit 1; }
echo "all $n builds clean"
