module github.com/curbi/curbi/bindings/go

go 1.22
