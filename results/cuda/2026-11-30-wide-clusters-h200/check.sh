# every input x k x options: cuda (the c16b build) against bisect (CPU)
B=$1; D=/tmp/in; L=$2; fails=0; total=0
for f in $D/normal_*.npy $D/ties_*.npy; do
 base=$(basename $f .npy); shape=${base#*_}
 for k in 64 1024 2048; do
  for opt in "" "--sorted" "--smallest" "--lengths $D/len_$shape.npy" "--sorted --smallest --lengths $D/len_$shape.npy"; do
   total=$((total+1))
   $B select --algo cuda --input $f -k $k $opt --values /tmp/cv.npy --indices /tmp/ci.npy 2>>$L/sel_err.txt
   $B select --algo bisect --input $f -k $k $opt --values /tmp/bv.npy --indices /tmp/bi.npy 2>>$L/sel_err.txt
   if cmp -s /tmp/cv.npy /tmp/bv.npy && cmp -s /tmp/ci.npy /tmp/bi.npy; then :; else fails=$((fails+1)); echo "MISMATCH $base k=$k $opt"; fi
  done
 done
done
echo "checked $total cases, $fails mismatches"
