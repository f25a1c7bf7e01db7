from student.mine import softmax_impl as run_softmax
