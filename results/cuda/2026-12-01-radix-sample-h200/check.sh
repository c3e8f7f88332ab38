# every input x k x options: cuda (binary $1) against bisect (CPU), bytes compared; logs in $2.
# The GPU runs one case at a time; the CPU's bisect runs eight at once beside it (one command
# line a case, so that no option is lost to xargs's line handling).
B=$1; D=/tmp/in; L=$2; C=/tmp/cases; mkdir -p $C
: > $C/list; : > $C/bisect
i=0
for f in $D/*.npy; do
 for k in 2048 32768; do
  for opt in none --smallest --sorted; do
   i=$((i+1)); o=${opt/none/}
   echo "$i $f $k $opt" >> $C/list
   echo "$B select --algo bisect --input $f -k $k $o --values $C/bv$i.npy --indices $C/bi$i.npy" >> $C/bisect
  done
 done
done
xargs -P 8 -d '\n' -I CMD sh -c "CMD 2>>$L/bisect_err.txt" < $C/bisect &
while read i f k opt; do
 o=${opt/none/}
 $B select --algo cuda --input $f -k $k $o --values $C/cv$i.npy --indices $C/ci$i.npy 2>>$L/sel_err.txt
done < $C/list
wait
fails=0; total=0
while read i f k opt; do
 total=$((total+1))
 if cmp -s $C/cv$i.npy $C/bv$i.npy && cmp -s $C/ci$i.npy $C/bi$i.npy; then :; else fails=$((fails+1)); echo "MISMATCH $(basename $f) k=$k $opt"; fi
done < $C/list
echo "checked $total cases, $fails mismatches"
