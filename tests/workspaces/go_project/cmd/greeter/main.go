// Command greeter greets everyone named on the command line.
package main

import (
	"fmt"
	"os"

	"example.com/goapp/greet"
)

func main() {
	for _, name := range os.Args[1:] {
		fmt.Println(greet.Hello(name))
	}
}
