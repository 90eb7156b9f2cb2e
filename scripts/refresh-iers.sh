#!/bin/sh
# Refresh the IERS EOP C04 table embedded in gomatvis
# (matvis/astro/iersdata/eopc04_IAU2000.62-now.gz) from FILE, by default the
# copy that Debian's python3-astropy installs (astropy's bundled IERS-B).
# Usage: scripts/refresh-iers.sh [FILE]
# Then update matvis/astro/iersdata/README.md, iersdata.Name and the
# checksum/span in iersdata_test.go (see the README), and run the tests.
set -eu
cd "$(dirname "$0")/.."
src=${1:-/usr/lib/python3/dist-packages/astropy/utils/iers/data/eopc04_IAU2000.62-now}
if [ ! -f "$src" ]; then
	echo "refresh-iers: $src not found; install it with: apt-get install -y python3-astropy (or pass a file)" >&2
	exit 1
fi
if ! grep -q 'FORMAT(3(I4),I7,2(F11.6),2(F12.7)' "$src"; then
	echo "refresh-iers: $src is not in the eopc04_IAU2000.62-now (14 C04) layout" >&2
	exit 1
fi
dst=matvis/astro/iersdata/eopc04_IAU2000.62-now.gz
gzip -9 -n -c "$src" >"$dst.tmp"
mv "$dst.tmp" "$dst"
echo "source: $src"
if command -v dpkg >/dev/null 2>&1 && dpkg -S "$src" >/dev/null 2>&1; then
	pkg=$(dpkg -S "$src" | cut -d: -f1)
	echo "package: $pkg $(dpkg-query -W -f='${Version}' "$pkg")"
fi
echo "file date: $(date -u -r "$src" '+%Y-%m-%d %H:%M:%S UTC')"
echo "sha256: $(sha256sum "$src" | cut -d' ' -f1)"
echo "bytes: $(wc -c <"$src") text, $(wc -c <"$dst") gzip'd"
awk 'substr($0,1,4) ~ /^[0-9]+$/ && substr($0,13,7) ~ /^ *[0-9]+$/ { if (!n) first=$4; last=$4; n++ }
	END { printf "rows: %d, MJD %s to %s\n", n, first, last }' "$src"
