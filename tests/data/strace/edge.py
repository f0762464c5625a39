import os, threading, subprocess
os.makedirs("d/sub", exist_ok=True)
os.chdir("d")
fd = os.open("a.dat", os.O_CREAT|os.O_RDWR|os.O_TRUNC|os.O_CLOEXEC, 0o644)
os.write(fd, b"x"*5000)
os.pwritev(fd, [b"y"*100, b"z"*200], 8192)
try:
    os.pwritev(fd, [b"q"*300], -1, os.RWF_APPEND) if hasattr(os,"RWF_APPEND") else None
except OSError: pass
os.preadv(fd, [bytearray(100), bytearray(50)], 0)
dfd = os.open("sub", os.O_RDONLY|os.O_DIRECTORY)
g = os.open("b.dat", os.O_CREAT|os.O_WRONLY, 0o644, dir_fd=dfd)
os.copy_file_range(fd, g, 4000, 0, 0)
os.sendfile(g, fd, 0, 1000)
os.fsync(g); os.close(g)
os.rename("sub/b.dat", "sub/c.dat", src_dir_fd=None)
os.chdir("sub")
with open("c.dat","rb") as f: f.read()
os.chdir("..")
def t():
    h = os.open("t.dat", os.O_CREAT|os.O_WRONLY, 0o644)
    os.write(h, b"t"*777); os.close(h)
th = threading.Thread(target=t); th.start(); th.join()
subprocess.run(["/bin/sh", "-c", "cat a.dat > sub/out.dat; cd sub && cat out.dat c.dat >> ../cat.dat"], check=True)
pid = os.fork()
if pid == 0:
    os.write(fd, b"c"*333)
    os._exit(0)
os.waitpid(pid, 0)
os.close(fd)
os.unlink("a.dat")
