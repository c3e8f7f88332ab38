# every input x k x options: cuda (binary $1) against bisect (CPU), bytes compared; logs in $2
B=$1; D=/tmp/in; L=$2; fails=0; total=0
for f in $D/*.npy; do
 base=$(basename $f .npy)
 for k in 4096 8192 32768; do
  for opt in "" "--smallest" "--sorted"; do
   total=$((total+1))
   $B select --algo cuda --input $f -k $k $opt --values /tmp/cv.npy --indices /tmp/ci.npy 2>>$L/sel_err.txt
   $B select --algo bisect --input $f -k $k $opt --values /tmp/bv.npy --indices /tmp/bi.npy 2>>$L/sel_err.txt
   if cmp -s /tmp/cv.npy /tmp/bv.npy && cmp -s /tmp/ci.npy /tmp/bi.npy; then :; else fails=$((fails+1)); echo "MISMATCH $base k=$k $opt"; fi
  done
 done
done
echo "checked $total cases, $fails mismatches"
