#!/bin/sh
# /tmp/rt21-b/subs: alice (the references' bodies, honest), carol_big (control: same files, stash off), mal_big
set -e
R=/work/redteam21; A=$R/attacks/stash_chain; S=/tmp/rt21-b/subs
rm -rf $S; mkdir -p $S/alice/student $S/carol_big/student $S/mal_big/student
for f in _h gelu conv1d layernorm softmax mlp attention block gpt2; do
  cp $A/$f.py $S/mal_big/student/; cp $A/$f.py $S/carol_big/student/
done
cp $R/student/__init__.py $S/mal_big/student/; cp $R/student/__init__.py $S/carol_big/student/
sed -i 's/^ON = True/ON = False/' $S/carol_big/student/_h.py
# alice: honest, from /tmp/rt21-a's alice plus the common/ bodies for the rest
cp /tmp/rt21-a/subs/alice/student/*.py $S/alice/student/
cp $A/alice_rest.py $S/alice/student/_mine.py
for s in layernorm:run_layernorm:layer_norm:"x, weight, bias" softmax:run_softmax:softmax:"x" \
         attention:run_attention:mha:"x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head" \
         block:run_block:transformer_block:"x, params, n_head"; do
  m=${s%%:*}; r=${s#*:}; fn=${r%%:*}; r=${r#*:}; c=${r%%:*}; a=${r#*:}
  printf 'from student._mine import %s\n\ndef %s(%s):\n    return %s(%s)\n' "$c" "$fn" "$a" "$c" "$a" > $S/alice/student/$m.py
done
sed 's/^import student._h.*$//' $A/gpt2.py > $S/alice/student/gpt2.py
